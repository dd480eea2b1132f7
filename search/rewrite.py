"""An optional query rewriter: an LLM turns a follow-up question into one that stands on its own.

It uses the chat endpoint configured for the summaries (``[llm]``), so it is off where none is; the
rule-based follow-up handling in ``search.conversation`` does not need it.
"""
from __future__ import annotations

from core.llm import LLMError, chat_completion, chat_endpoint
from core.settings import Settings
from core.urls import redact

TIMEOUT = 10  # seconds; a rewrite holds up a search, so it gets less than a summary at ingest
MAX_TOKENS = 128  # a rewritten question is one line
TEMPERATURE = 0.0  # the same conversation gets the same rewrite
_QUOTES = "\"'`“”„‟«»‹›‘’‚"

_SYSTEM = (
    "You rewrite the last question of a conversation with an intranet search engine so that it can be "
    "understood without the conversation. Resolve pronouns and references (\"it\", \"that one\", "
    "\"and the TPM?\") with the earlier questions and the titles of the results shown for them. "
    "Write in the language of the last question; keep names, product names, codes, numbers and dates "
    "exactly as written. Do not answer the question and add nothing else. If the last question already "
    "stands on its own, repeat it unchanged. Answer with the question only, on one line."
)


class QueryRewriter:
    """Configuration-only init; ``run`` sends one chat completion when there is history."""

    def __init__(self, base_url: str, model: str, api_key: str = "", timeout: float = TIMEOUT):
        self.base_url = base_url
        self.model = model
        self.api_key = api_key
        self.timeout = timeout

    def run(self, query: str, history: list[tuple[str, list[str]]]) -> str:
        """``query`` rewritten to stand on its own, given the earlier (question, result titles) turns,
        oldest first; ``query`` itself when there are none.

        Raises LLMError when the endpoint fails or gives no question, so the caller can fall back.
        """
        if not history:
            return query
        answer = chat_completion(self.base_url, self.model, self.api_key, self.messages(query, history),
                                 self.timeout, temperature=TEMPERATURE, max_tokens=MAX_TOKENS)
        rewritten = _first_line(answer)
        if not rewritten:
            raise LLMError(f"chat completion at {redact(chat_endpoint(self.base_url))} gave no question")
        return rewritten

    @staticmethod
    def messages(query: str, history: list[tuple[str, list[str]]]) -> list[dict[str, str]]:
        turns = [f"{i}. {question}\n   Results shown: {'; '.join(titles) or 'none'}"
                 for i, (question, titles) in enumerate(history, 1)]
        user = "Earlier questions, oldest first:\n" + "\n".join(turns) + f"\n\nLast question: {query}"
        return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def _first_line(answer: str) -> str:
    line = next((line.strip() for line in answer.splitlines() if line.strip()), "")
    if len(line) >= 2 and line[0] in _QUOTES and line[-1] in _QUOTES:
        line = line[1:-1].strip()
    return line


def load_rewriter(settings: Settings) -> QueryRewriter | None:
    """A rewriter on the ``[llm]`` endpoint, or None when none is configured or ``rewrite_queries`` is off.

    The summary timeout is meant for long texts at ingest; a rewrite holds up a search, so it keeps its own.
    """
    llm = settings.llm
    if not (llm.base_url and llm.model and llm.rewrite_queries):
        return None
    return QueryRewriter(llm.base_url, llm.model, llm.api_key)
