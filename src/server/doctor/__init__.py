"""``pyjdwp-doctor``: check that a device and an app can be debugged, and bring back a recording. Layer:
``server``; importing the room imports none of its modules.
"""
