"""Planner: SQL statements to a graph of exec nodes (the compiled plan)."""
