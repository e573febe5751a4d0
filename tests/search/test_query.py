"""Turning what people type into engine queries: user text is always quoted, never syntax."""

from __future__ import annotations

from app.search.query import (
    MAX_CLAUSES,
    MAX_QUERY_CHARS,
    fts5_expression,
    parse,
    pg_tsquery,
    with_spellings,
)


def test_words_phrases_compounds_and_exclusions() -> None:
    query = parse('"prefix caching" kv-cache -MLA p99')
    assert [(c.words, c.negated, c.prefix) for c in query.clauses] == [
        (("prefix", "caching"), False, False),
        (("kv", "cache"), False, False),
        (("mla",), True, False),
        (("p99",), False, True),  # still being typed
    ]
    # A compound also matches its words written joined, as the indexer indexes them too.
    assert fts5_expression(query) == (
        '("prefix caching" AND ("kv cache" OR "kvcache") AND "p99"*) NOT ("mla")'
    )


def test_a_finished_word_is_not_a_prefix() -> None:
    assert not parse("mla ").clauses[-1].prefix
    assert not parse('"mla"').clauses[-1].prefix
    assert not parse("m").clauses[-1].prefix  # one letter would match half the index


def test_operators_are_words_and_stop_words_are_dropped() -> None:
    query = parse("NEAR AND OR NOT the")
    assert [c.words for c in query.clauses] == [("near",)]
    assert parse("the of and").is_empty
    assert parse("-mla").is_empty  # only an exclusion: nothing to look for
    assert parse("*:^(){}").is_empty


def test_column_filter_covers_the_whole_expression() -> None:
    expression = fts5_expression(parse("prefix -routing"), ("title", "lede"))
    assert expression == '{title lede} : (("prefix") NOT ("routing"))'


def test_postgres_query_takes_user_text_only_as_parameters() -> None:
    sql, params = pg_tsquery(parse("kv-cache 'or' (x) -mla p9"))
    assert "kv" not in sql and "mla" not in sql and "'" not in sql.replace("'english'", "")
    assert params["tsq0"] == '"kv-cache"' and params["tsq0w"] == '"kv cache"'
    assert params["tsq1"] == '"x"'
    assert "(!! websearch_to_tsquery('english', :tsq2))" in sql
    assert params["tsq3"] == "'p9':*"


def test_long_and_odd_input_is_cut_down() -> None:
    assert len(parse("x" * 10_000).text) == MAX_QUERY_CHARS and parse("x" * 10_000).truncated
    assert len(parse(" ".join(f"w{i}" for i in range(100))).clauses) == MAX_CLAUSES
    assert parse("kv\x00cache\x02").text == "kv cache"  # control characters are spaces


def test_a_known_compound_typed_joined_also_looks_for_its_words() -> None:
    spellings = {"allreduce": ("all", "reduce")}
    query = with_spellings(parse("allreduce cost "), spellings)
    assert fts5_expression(query) == '(("allreduce" OR "all reduce") AND "cost")'
    sql, params = pg_tsquery(query)
    assert params == {"tsq0": '"allreduce"', "tsq0s": '"all reduce"', "tsq1": '"cost"'}
    assert ":tsq0s" in sql
    # An unknown word, and a word inside a phrase, are left alone.
    assert with_spellings(parse("kvcache "), spellings) == parse("kvcache ")
    assert with_spellings(parse('"allreduce cost"'), spellings) == parse('"allreduce cost"')
