"""The engine's one error: a puzzle, cage or puzzle text that breaks the rules."""


class PuzzleError(ValueError):
    """A puzzle, cage or puzzle text that breaks the rules; the message names the problem."""
