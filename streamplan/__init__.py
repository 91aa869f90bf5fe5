"""streamplan: Flink-style streaming SQL compiled to versioned exec-node plans, run on PySpark."""
