"""Spark runtime of streamplan: session, values connector, sinks, stateful processors."""
