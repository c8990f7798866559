"""A debugging session and what it is attached to: the session manager, each session, its event ring, targets and
addresses, the server's configuration and the tools' shared inputs. Layer: ``server``; importing the room
imports none of its modules.
"""
