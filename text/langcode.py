"""Language codes as every part of the project compares them: ``normalize_lang("de-DE") == "de"``."""
from __future__ import annotations


def normalize_lang(lang: str | None) -> str:
    """"de-DE" -> "de", "pt_BR" -> "pt", "ES" -> "es", None -> ""."""
    return (lang or "").strip().replace("_", "-").split("-")[0].lower()
