"""A Confluence source's sync, in phases that each leave a checkpoint behind.

1. ``changed`` (incremental syncs): the pages modified since the cursor minus ``sources.overlap_seconds``,
   listed without bodies; each listing answer is stored as pending before its ``_links.next`` is saved,
   so a killed listing resumes where it stopped.
2. ``scope`` (the first sync, ``--full``, and every ``sources.scope_check_every``-th): every page in scope
   with its version, ancestors and read restrictions, still without bodies. It finds pages moved into
   scope and restrictions changed on an ancestor (which change no page's version), and gives the ids
   for the deletion check.
3. ``index``: each pending page whose version or read levels differ from what was indexed is fetched,
   parsed, embedded and written with its attachments; the store records it and drops it from pending in
   one transaction. A task indexes at most ``sources.items_per_task`` pages (and works at most
   ``sources.seconds_per_task``), then queues the rest as a new task, so one large wiki never starves the
   other sources.
4. ``delete`` (after a scope listing): pages indexed but no longer in scope (deleted, trashed,
   archived, moved out, restricted out of the listing's sight) leave the index with their attachments.

The cursor (the latest modification time the listings saw) advances only when all four are done. Listings
that pass ``sources.max_listed_per_sync`` ids end the sync before the index and delete phases
(``run.ListingCapped``): ids listed so far are never taken for the whole scope.
"""
from __future__ import annotations

import re
from dataclasses import asdict
from datetime import datetime, timedelta

from ingest.sources import SourceFile
from workers.connectors.confluence.access import inherited_levels, own_level, parse_space_groups, principals
from workers.connectors.confluence.connector import ConfluenceClient, PageGone, SourceError, TooLarge
from workers.connectors.confluence.models import AttachmentRef, ConfluenceConfig, PageRef
from workers.sync.run import ItemError, SyncRun, now_iso, source_secret

# A user named in a storage-format body (``<ri:user ri:account-id="…"/>``; user key or name on Data Center),
# read from the page's JSON bytes (where the quotes are escaped) so their names are asked for before parsing.
MENTION = re.compile(rb'ri:(?:account-id|userkey|username)=\\?"([^"\\]+)')


def client_for(run: SyncRun) -> ConfluenceClient:
    """The client for a registered Confluence source, its secrets read from the worker's environment."""
    options, settings = run.entry.options, run.ctx.settings.sources
    config = ConfluenceConfig(
        url=options["url"], deployment=options.get("deployment", "cloud"), token=source_secret(run.entry, "token"),
        user=source_secret(run.entry, "user"), spaces=list(options.get("spaces", [])), cql=options.get("cql", ""),
        attachments=list(options.get("attachments", [])), max_attachment_bytes=settings.max_attachment_bytes,
        requests_per_second=float(options.get("requests_per_second") or settings.requests_per_second),
        timeout=settings.request_timeout, deadline=settings.request_deadline,
        allowed_private_hosts=settings.allowed_private_hosts)
    return ConfluenceClient(config)


def shift(iso: str, seconds: int) -> str:
    return (datetime.fromisoformat(iso.replace("Z", "+00:00")) - timedelta(seconds=seconds)).isoformat()


class ConfluenceSync(SyncRun):
    """One task's share of a Confluence source's sync; ``step()`` says whether the sync is done."""

    def __init__(self, *args, client: ConfluenceClient | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.client = client or client_for(self)
        self.space_groups = parse_space_groups(self.entry.options.get("space_groups", ""))
        self._restrictions: dict[str, list[str]] = {}

    def begin(self) -> dict:
        state = self.store.state(self.name)
        cursor = "" if self.full else state["cursor"]
        every = max(1, self.ctx.settings.sources.scope_check_every)
        since = shift(cursor, self.ctx.settings.sources.overlap_seconds) if cursor else None
        checkpoint = {"phase": "changed" if since else "scope", "since": since, "cursor": cursor,
                      "scope_check": not cursor or state["syncs"] % every == 0, "next_link": None,
                      "started": now_iso(), "full": self.full, "counts": {}, "error": ""}
        self.store.save_checkpoint(self.name, **checkpoint)
        return checkpoint

    def step(self) -> bool:
        """Carry the sync on from its checkpoint; True when it finished, False when a new task must go on."""
        checkpoint = self.store.checkpoint(self.name)
        if "phase" not in checkpoint:  # none, or only the error of an attempt that never began
            checkpoint = self.begin()
        self.full = bool(checkpoint.get("full"))
        requests_before = self.client.requests_made
        try:
            if checkpoint["phase"] == "changed":
                self.list_pages(checkpoint, since=checkpoint["since"], in_scope=False)
                checkpoint = self.next_phase("scope" if checkpoint["scope_check"] else "index")
            if checkpoint["phase"] == "scope":
                self.list_pages(checkpoint, since=None, in_scope=True)
                checkpoint = self.next_phase("index")
            if checkpoint["phase"] == "index":
                if not self.index_pending():
                    return False
                checkpoint = self.next_phase("delete" if checkpoint["scope_check"] else "done")
            if checkpoint["phase"] == "delete":
                self.delete_out_of_scope()
        finally:
            self.count("requests", self.client.requests_made - requests_before)
        self.finish(self.store.checkpoint(self.name).get("cursor", ""))
        return True

    def next_phase(self, phase: str) -> dict:
        self.store.save_checkpoint(self.name, phase=phase, next_link=None)
        return self.store.checkpoint(self.name)

    def list_pages(self, checkpoint: dict, since: str | None, in_scope: bool) -> None:
        cursor = checkpoint.get("cursor") or ""
        for answer in self.client.list_pages(since=since, resume=checkpoint.get("next_link")):
            self.check_cancelled()
            self.listed(len(answer.items))
            self.store.add_pending(self.name, {page.id: asdict(page) for page in answer.items}, in_scope)
            cursor = max([cursor, *(page.when for page in answer.items)])
            self.store.save_checkpoint(self.name, next_link=answer.next_link, cursor=cursor)

    def restriction_of(self, page_id: str) -> list[str]:
        """A page's own read restriction: from this sync's listing, else as last indexed, else asked for."""
        if page_id not in self._restrictions:
            listed = self.store.pending_item(self.name, page_id)
            known = self.store.item(self.name, page_id)
            if listed:
                level = own_level(PageRef(**listed))
            elif known and "own" in known:
                level = known["own"]
            else:
                level = principals(*self.client.read_restrictions(page_id))
            self._restrictions[page_id] = level
        return self._restrictions[page_id]

    def index_pending(self) -> bool:
        """Index the pending pages that changed; False when this task's budget ran out first."""
        unchanged: list[str] = []
        for page_id, listed in self.store.pending(self.name):
            page = PageRef(**listed)
            own = own_level(page)
            inherited = inherited_levels(page, self.restriction_of, self.space_groups)
            known = self.store.item(self.name, page_id)
            if (not self.full and known and known.get("version") == page.version
                    and known.get("levels") == [own, *inherited]):
                unchanged.append(page_id)
                continue
            self.store.skip_pending(self.name, unchanged)
            unchanged = []
            if not self.go_on():
                return False
            self.index_page(page, own, inherited, known)
            self.pages_taken += 1
        self.store.skip_pending(self.name, unchanged)
        return True

    def index_page(self, page: PageRef, own: list[str], inherited: list[list[str]], known: dict | None) -> None:
        record = {"version": page.version, "levels": [own, *inherited], "own": own, "title": page.title,
                  "doc_ids": [], "attachments": {}}
        try:
            data = self.client.page_json(page.id)
        except PageGone:  # deleted between the listing and now
            self.forget(page.id, known)
            return
        name = f"{self.name}/{page.id}.json"  # the suffix ingest tells Confluence JSON by
        try:
            users = self.client.users(sorted({m.decode() for m in MENTION.findall(data)}))
        except SourceError as exc:  # a token that may not read profiles: mentions keep their ids
            self.record(name, f"warning: user names not read ({exc}); its mentions show account ids instead")
            users = {}
        try:
            indexed = self.index(SourceFile(name=name, data=data, acl_inherited=inherited, users=users,
                                            source=self.name))
        except ItemError as exc:
            self.record(name, str(exc))
            self.count("failed")
            self.store.set_item(self.name, page.id, {**record, "failed": str(exc)})
            return
        record["doc_ids"] = [indexed.doc_id]
        trail = [*indexed.parsed.document.breadcrumb, indexed.parsed.document.title]
        record["attachments"] = self.sync_attachments(page, own, inherited, trail, (known or {}).get("attachments", {}))
        record["doc_ids"] += [a["doc_id"] for a in record["attachments"].values() if a.get("doc_id")]
        stale = [d for d in (known or {}).get("doc_ids", []) if d not in record["doc_ids"]]
        if stale:  # ids the page had before they named their source
            self.delete(stale)
        self.store.set_item(self.name, page.id, record)
        self.count("updated" if known else "added")

    def sync_attachments(self, page: PageRef, own: list[str], inherited: list[list[str]], trail: list[str],
                         known: dict[str, dict]) -> dict[str, dict]:
        """The page's attachments of the configured types, each its own document under the page's ACL.

        An unchanged version is kept as indexed; a removed attachment leaves the index; one over the size
        limit is recorded as skipped.
        """
        if not self.client.config.attachments:
            return {}
        kept: dict[str, dict] = {}
        for att in self.client.attachments(page.id):
            before = known.get(att.id)
            if before and before.get("version") == att.version and not self.full:
                kept[att.id] = before
                continue
            kept[att.id] = self.index_attachment(att, own, inherited, trail)
        gone = [a["doc_id"] for att_id, a in known.items() if att_id not in kept and a.get("doc_id")]
        if gone:
            self.delete(gone)
            self.count("attachments_deleted", len(gone))
        return kept

    def index_attachment(self, att: AttachmentRef, own: list[str], inherited: list[list[str]],
                         trail: list[str]) -> dict:
        name = f"{self.name}/{att.page_id}/{att.title}"
        try:
            data = self.client.download(att)
            indexed = self.index(SourceFile(name=name, data=data, url=att.download, title=att.title, acl=own,
                                            acl_inherited=inherited, breadcrumb=trail, source=self.name))
        except TooLarge as exc:
            self.record(name, f"skipped: {exc}")
            self.count("attachments_skipped")
            return {"version": att.version, "doc_id": "", "skipped": str(exc)}
        except ItemError as exc:
            self.record(name, str(exc))
            self.count("failed")
            return {"version": att.version, "doc_id": "", "failed": str(exc)}
        self.count("attachments")
        return {"version": att.version, "doc_id": indexed.doc_id}

    def delete_out_of_scope(self) -> None:
        in_scope = self.store.in_scope(self.name)
        for page_id, record in self.store.items(self.name).items():
            if page_id in in_scope:
                continue
            self.check_cancelled()
            if not self.still_in_scope(page_id):
                self.forget(page_id, record)

    def still_in_scope(self, page_id: str) -> bool:
        """Whether a page the scope listing did not show is there all the same: on Data Center, a page deleted
        during a listing shifts the offsets of the pages after it, so one of them can go unseen. It is asked
        for by id before it leaves the index (a CQL scope cannot be checked on one page: the listing rules)."""
        try:
            page = self.client.page_ref(page_id)
        except PageGone:
            return False
        config = self.client.config
        return page.status == "current" and not config.cql and page.space in config.spaces
