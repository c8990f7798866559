"""How a call arrives and leaves: stdin and stdout (the SDK's stdio transport), and one ``tools/call`` handled from
its input to its envelope. Layer: ``server``; importing the room imports none of its modules.
"""
