"""The ``piano`` command line. One file per command; :mod:`.main` dispatches."""
