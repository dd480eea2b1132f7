"""Text analysis shared by ingest and search: language detection, stop words, lookup lemmas, dates.

Pure functions over strings, no I/O beyond reading the installed spaCy lookup tables.
May import: nothing of this project.
"""
