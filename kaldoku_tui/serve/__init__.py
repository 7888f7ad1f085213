"""`kaldoku serve`: the game over SSH for anyone, identified by their key (asyncssh).

gate.py counts who may connect; game.py runs a player's game in its own process on a
pty; server.py is the SSH side: authentication, the session, the log.
"""
