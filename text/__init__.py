"""Text analysis shared by ingest and search; pure functions over strings.

``langcode`` (language codes), ``lookups`` (the one reader of spacy-lookups-data: lemma tables, word
frequencies, part-of-speech lists), ``stopwords`` (stop words and the content-word rule), ``detect``
(language detection), ``lemmas`` (the lookup ``Lemmatizer``), ``sentences`` (sentence splitting),
``hyphenation`` (lines joined where a word was broken), ``dates`` (dates as ISO tokens), ``simhash`` (a page
text's near-duplicate signature), ``acronyms`` (the acronyms a text or a glossary row defines).

No I/O beyond reading the installed spaCy and spacy-lookups-data files.
May import: nothing of this project.
"""
