"""The sans-IO JDWP protocol: framing, the command table, data types, errors. No trio, no sockets.

Modules: ``wire`` (handshake, header), ``connection`` (the state machine), ``commands`` (THE table),
``types``/``values``/``strings`` (data types), ``records`` (typed construct records), ``fast`` (hand-framed
hot paths), ``constants``, ``errors``.
"""
