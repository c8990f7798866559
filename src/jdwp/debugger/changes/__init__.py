"""Changing the running program: reload classes (hot swap), restart a frame, force a return.

Layer: ``jdwp.debugger`` (trio, via ``jdwp.client``). The engine allows all of it only on a session made with
mutation on (the server's ``--allow-mutation``) and on a VM whose ``VirtualMachine.CapabilitiesNew`` (1,17)
says it can (``canRedefineClasses``, ``canPopFrames``, ``canForceEarlyReturn``). See ``docs/tools.md``.
"""
