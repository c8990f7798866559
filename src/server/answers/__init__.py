"""What the server answers: the envelope and its error codes, the records several tools answer, the tool
definitions (``tools/list``), their budgets, and the tables of tools and prompts. Layer: ``server``; importing
the room imports none of its modules.
"""
