"""SQL front end: scripts of statements parsed into the model in :mod:`streamplan.sql.ast`."""
