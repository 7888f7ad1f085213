"""kaldoku: a KenKen puzzle game for the terminal."""

__version__ = "0.2.0"
