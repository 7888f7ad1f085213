"""The engine's errors: a puzzle, cage or puzzle text that breaks the rules, and a
puzzle no longer wanted."""


class PuzzleError(ValueError):
    """A puzzle, cage or puzzle text that breaks the rules; the message names the problem."""


class Stopped(Exception):
    """Generation given up because its caller no longer wants the puzzle. Here, not in the
    generator, so that those who catch it need not import the generator."""
