"""Source formats behind one small interface: a new source is a new module here.

A source turns one file's bytes into a ParsedDocument (document metadata and
content blocks in reading order); ``ingest.assemble`` does the rest.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Protocol

from ingest.blocks import ParsedDocument
from ingest.config import IngestConfig


@dataclass
class SourceFile:
    """A file handed to a source: its bytes plus what the corpus around it says of it."""

    name: str  # relative path or file name; names the input in errors and in default URLs
    data: bytes
    url: str = ""  # from a manifest or a base URL; a source may know better (Confluence _links)
    title: str = ""
    lang: str = ""
    acl: list[str] = field(default_factory=list)  # principals (``ingest.principals``), not bare names
    # Read restrictions above the document's own (a Confluence page's restricted ancestors, its space): each
    # level must admit a reader, as in Confluence, so they are kept apart instead of merged.
    acl_inherited: list[list[str]] = field(default_factory=list)
    users: dict[str, str] = field(default_factory=dict)  # Confluence account id -> display name
    breadcrumb: list[str] = field(default_factory=list)  # where it hangs, when the source says (an attachment's page)
    # The source it belongs to: a sync source's registered name, a folder's name (its own name, or the one given
    # with ``evident ingest --source``), never a path on a disk. With the page id or the name it makes the
    # document's id, which search answers show: two sources never share one, and no id tells a caller where a
    # server keeps its files.
    source: str = ""

    @property
    def key(self) -> str:
        """The file's key in the worker's registries (fingerprint, documents): its source and its name."""
        return source_key(self.source, self.name)

    def doc_id(self, kind: str, local: str) -> str:
        """The id of a document of this file: its kind, its source and its id within the source."""
        return ":".join(part for part in (kind, self.source, local) if part)

    def side_information(self) -> dict:
        """Everything but the bytes: what the corpus says of the file."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "data"}


def source_key(source: str, name: str) -> str:
    """A file's key among every source's files: ``<source>:<name>``, or the name alone without a source."""
    return f"{source}:{name}" if source else name


class Source(Protocol):
    name: str

    def accepts(self, file: SourceFile) -> bool:
        """True when this source can parse the file (by suffix and a look at the bytes)."""

    def parse(self, file: SourceFile, config: IngestConfig) -> ParsedDocument:
        """Parse or raise ingest.blocks.ParseError naming the file and the reason."""
