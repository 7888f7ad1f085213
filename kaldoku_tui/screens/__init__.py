"""The game's screens: the board, the new-game dialog, help, the win and confirmations."""
