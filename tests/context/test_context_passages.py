"""A question's passages: chosen by value per token, rendered under one label per record."""

from __future__ import annotations

import math
from dataclasses import replace

from passage_support import WEIGHTS, chunked, ranked, record

from open_notebook.context import (
    ItemType,
    PassageAssembly,
    RankedChunk,
    RenderFormat,
    assemble_passages,
    pack_chunks,
)
from open_notebook.context._question.assemble import _fit
from open_notebook.context._question.board import board_of, released
from open_notebook.context._question.choose import Picked, Stop
from open_notebook.context._question.passages import blocks_of, costs_of
from open_notebook.context._question.repeats import Wording
from open_notebook.context._question.sentences import drafts_of
from open_notebook.context._question.value import CHUNK_SHARE, COVERAGE_PIVOT, units_of
from open_notebook.context._render import SEPARATOR
from open_notebook.search import query_terms
from open_notebook.segment import sentences
from open_notebook.text import question_parts
from open_notebook.tokens import BpeTokenCounter

COUNTER = BpeTokenCounter()
FILLER = [f"Section {i} lists the routine figures of the year in a table." for i in range(30)]
ANSWER = "The turbine blades ice over when the air is wet and below freezing."
ANSWER_TWO = "Ice also forms in freezing fog at the hub, and the heaters run for hours to clear it."
MANUAL = "Turbine blades ice over in wet winter air, the crews report every year."


def _report() -> tuple[str, list[RankedChunk]]:
    sentences_ = list(FILLER)
    sentences_[13] = ANSWER
    text = " ".join(sentences_)
    return text, chunked(record("report", "Annual report"), text)


def _assemble(
    chunks: list[RankedChunk], question: str, budget: int | None, **options: object
) -> PassageAssembly:
    return assemble_passages(
        chunks,
        query_terms(question),
        counter=COUNTER,
        budget=budget,
        type_weights=WEIGHTS,
        **options,  # type: ignore[arg-type]
    )


def test_the_sentence_that_answers_goes_first_under_one_label() -> None:
    text, chunks = _report()
    # Search put the chunk holding the answer third, a little below the first two.
    holding = next(i for i, one in enumerate(chunks) if ANSWER in one.text)
    order = [0, 1, holding, *(i for i in range(2, len(chunks)) if i != holding)]
    offered = [replace(one, score=1.0 - one.rank / 20) for one in ranked(chunks, order)]
    result = _assemble(offered, "when do turbine blades ice?", 60)
    assert ANSWER in result.rendered
    assert result.total_tokens == COUNTER.count(result.rendered) <= 60
    assert result.rendered.count("### Annual report") == 1
    # The label names no record id: the payload maps each passage number to its record.
    assert "source:report" not in result.rendered
    assert [one.number for one in result.passages] == list(range(1, len(result.passages) + 1))
    best = max(result.passages, key=lambda one: one.relevance)
    assert ANSWER in best.text and best.relevance == 1.0
    assert best.text == text[best.char_start : best.char_end]
    assert best.handle == f"source:report#c{best.ord}"
    assert best.chunk_id == chunks[best.ord].chunk_id


def test_overlapping_chunks_send_their_shared_sentence_once() -> None:
    text, chunks = _report()
    result = _assemble(ranked(chunks, range(len(chunks))), "routine figures", 2000)
    for start, end in sentences(text):
        assert result.rendered.count(text[start:end]) <= 1
    # With room for everything, the record's text comes back whole, as one passage.
    assert len(result.passages) == 1
    assert result.passages[0].text == text


def test_passages_in_document_order_with_gap_markers_and_handles() -> None:
    text, chunks = _report()
    order = [len(chunks) - 1, 0, *range(1, len(chunks) - 1)]
    result = _assemble(ranked(chunks, order), "routine figures", 90)
    starts = [one.char_start for one in result.passages]
    assert starts == sorted(starts) and len(starts) >= 2
    lines = result.rendered.splitlines()
    assert lines[0] == "### Annual report"
    assert "…" in lines  # the text between two passages is left out, and says so
    # Passages are numbered in reading order, each number before its text.
    assert [line.split("] ", 1)[0] for line in lines if line.startswith("[")] == [
        f"[{number}" for number in range(1, len(result.passages) + 1)
    ]
    for number, passage in enumerate(result.passages, start=1):
        assert passage.number == number
        assert f"[{number}] {passage.text.strip()}" in result.rendered
        assert passage.text == text[passage.char_start : passage.char_end]
        assert passage.handle == f"source:report#c{passage.ord}"


def test_xml_passages_are_elements_with_handles() -> None:
    _, chunks = _report()
    result = _assemble(ranked(chunks, range(len(chunks))), "turbine ice", 120, fmt=RenderFormat.XML)
    assert result.rendered.startswith('<source title="Annual report">')
    assert '<passage n="1">' in result.rendered and result.rendered.endswith("</source>")
    assert "source:report" not in result.rendered
    assert result.total_tokens == COUNTER.count(result.rendered) <= 120


def test_a_short_note_goes_in_whole_or_not_at_all() -> None:
    _, chunks = _report()
    note = record("n1", "Icing", ItemType.NOTE)
    text = "Blade icing stops a turbine. Heaters clear it. Check them in winter."
    note_chunks = chunked(note, text, per_chunk=10)
    assert note_chunks[0].whole
    offered = ranked([*note_chunks, *chunks], range(len(chunks) + 1))
    for budget in (40, 400):
        result = _assemble(offered, "turbine icing heaters", budget)
        notes = [one for one in result.passages if one.record.id == note.id]
        assert notes == [] or notes[0].text == text


def test_repeats_across_records_add_nothing() -> None:
    text, chunks = _report()
    copy = record("copy", "Copy of the report")
    # Search put the chunk holding the answer first, the rest in text order.
    holding = next(i for i, one in enumerate(chunks) if ANSWER in one.text)
    order = [holding, *(i for i in range(2 * len(chunks)) if i != holding)]
    offered = ranked([*chunks, *chunked(copy, text)], order)
    result = _assemble(offered, "turbine blades ice", None)
    assert result.rendered.count(ANSWER) == 1
    assert {one.record.id for one in result.passages} == {"source:report"}
    # The copy's chunks repeat passages sent (or text the question gives no reason for).
    reasons = {entry["reason"] for entry in result.manifest["dropped"]}
    repeats = {f"duplicate_of:{one.handle}" for one in result.passages}
    assert reasons & repeats
    assert reasons <= repeats | {"low_relevance"}
    # With little room, the copy's chunks say why they are out: the budget, not the repeats.
    small = _assemble(offered, "turbine blades ice", 120)
    assert small.rendered.count(ANSWER) == 1
    assert "budget" in {entry["reason"] for entry in small.manifest["dropped"]}


def test_a_repeat_is_named_as_one_before_the_budget_or_the_floor() -> None:
    report = chunked(record("report", "Annual report"), ANSWER, per_chunk=1)
    question = "turbine blades ice"
    alone = _assemble(ranked(report, [0]), question, None)
    for copy_text in (ANSWER, ANSWER.replace("The turbine", "Turbine")):
        copy = chunked(record("copy", "Copy"), copy_text, per_chunk=1)
        offered = ranked([*report, *copy], [0, 1])
        # Room for the report alone, and a floor the copy's rank keeps it below: either would
        # leave the copy out, but what says most about it is that it repeats the report.
        for options in ({"budget": alone.total_tokens + 5}, {"budget": None, "floor": 0.9}):
            result = _assemble(offered, question, **options)
            assert result.rendered == alone.rendered
            [entry] = result.manifest["dropped"]
            assert entry["reason"] == f"duplicate_of:{result.passages[0].handle}"
            assert result.manifest["stopped"] == "candidates_exhausted"


def test_the_best_passage_is_cut_rather_than_displaced_by_a_shorter_one() -> None:
    long_answer = "The turbine blades ice over " + "when the wet air freezes on them " * 8 + "."
    best = chunked(record("best", "Icing"), long_answer, per_chunk=1)
    filler = chunked(record("filler", "Notes"), "Turbines are tall.", per_chunk=1)
    result = _assemble(ranked([*best, *filler], [0, 1]), "turbine blades ice", 30)
    assert [one.record.id for one in result.passages] == ["source:best"]
    assert result.passages[0].cut and result.total_tokens <= 30


def test_the_order_chunks_are_offered_in_does_not_matter() -> None:
    _, chunks = _report()
    offered = ranked(chunks, range(len(chunks)))
    first = _assemble(offered, "turbine blades ice", 150)
    reordered = _assemble(list(reversed(offered)), "turbine blades ice", 150)
    assert first.rendered == reordered.rendered
    assert first.manifest == reordered.manifest


def test_far_below_the_best_is_left_out_and_the_manifest_says_why() -> None:
    _, chunks = _report()
    result = _assemble(ranked(chunks, range(len(chunks))), "turbine blades ice", None, floor=0.3)
    assert result.manifest["stopped"] == "relevance_floor"
    reasons = {entry["reason"] for entry in result.manifest["dropped"]}
    assert reasons == {"low_relevance"}


def test_every_offered_chunk_is_in_exactly_one_list() -> None:
    _, chunks = _report()
    offered = ranked(chunks, range(len(chunks)))
    result = _assemble(offered, "turbine blades ice", 120)
    covered = {key for entry in result.manifest["included"] for key in entry["chunks"]}
    dropped = [entry["chunk_id"] for entry in result.manifest["dropped"]]
    assert len(dropped) == len(set(dropped))
    assert covered.isdisjoint(dropped)
    assert covered | set(dropped) == {one.chunk_id for one in offered}


def test_chinese_sentences_and_terms() -> None:
    text = "东京是日本的首都。大阪以美食闻名！京都有很多寺庙？札幌冬天很冷。"
    assert [text[a:b] for a, b in sentences(text)] == [
        "东京是日本的首都。",
        "大阪以美食闻名！",
        "京都有很多寺庙？",
        "札幌冬天很冷。",
    ]
    chunks = chunked(record("jp", "日本"), text, per_chunk=4, overlap=0)
    result = _assemble(ranked(chunks, [0]), "京都有多少寺庙", 30)
    assert "京都有很多寺庙？" in result.rendered


def test_plain_chunk_packing_skips_what_does_not_fit() -> None:
    from passage_support import hit

    _, chunks = _report()
    hits = [hit(one, rank, 1.0 / rank) for rank, one in enumerate(chunks[:4], start=1)]
    first = COUNTER.count(hits[0].text)
    packed = pack_chunks(hits, counter=COUNTER, budget=first + 1)
    assert [one.id for one in packed.included] == [hits[0].id]
    assert packed.rendered == hits[0].text
    assert packed.total_tokens == COUNTER.count(packed.rendered) <= first + 1
    everything = pack_chunks(hits, counter=COUNTER, budget=10_000)
    assert everything.rendered == "\n\n".join(one.text for one in hits)


def test_sentences_go_on_after_abbreviations_but_split_uncased_text() -> None:
    def split(text: str) -> list[str]:
        return [text[a:b] for a, b in sentences(text)]

    assert split("Damage in U.S. history was high. Then it fell.") == [
        "Damage in U.S. history was high.",
        "Then it fell.",
    ]
    assert split("Sent to Washington, D.C. with care. Open.... now closed.") == [
        "Sent to Washington, D.C. with care.",
        "Open.... now closed.",
    ]
    # Text written without capitals still splits at its sentence ends.
    assert split("the flow is laminar . transition follows . done") == [
        "the flow is laminar .",
        "transition follows .",
        "done",
    ]


def test_sentences_go_on_after_initials_titles_and_references() -> None:
    def split(text: str) -> list[str]:
        return [text[a:b] for a, b in sentences(text)]

    assert split("It was built by Henry A. Walsh in 1901. J. R. R. Tolkien wrote it.") == [
        "It was built by Henry A. Walsh in 1901.",
        "J. R. R. Tolkien wrote it.",
    ]
    assert split("Dr. Smith moved to St. Louis (see Fig. 3, pp. 12). He was 6 ft. tall.") == [
        "Dr. Smith moved to St. Louis (see Fig. 3, pp. 12).",
        "He was 6 ft. tall.",
    ]
    # A reference word before a capital, and a title at a sentence's end before a lowercase
    # word that is not in the list, still end the sentence where the text says so.
    assert split("Read No. The rest follows. We met at noon.") == [
        "Read No.",
        "The rest follows.",
        "We met at noon.",
    ]
    # Full-width periods end Chinese sentences as 。 does, except after an initial.
    assert split("第一句．第二句。第三") == ["第一句．", "第二句。", "第三"]
    assert split("还有、A．Ｌ．纳戴等。下一句。") == ["还有、A．Ｌ．纳戴等。", "下一句。"]


def test_hard_wrapped_prose_is_one_sentence_and_lines_of_their_own_are_not() -> None:
    def split(text: str) -> list[str]:
        return [text[a:b] for a, b in sentences(text)]

    wrapped = (
        "A dough that is cold will\nsimply need more time, cut short by a\ncold kitchen. Next."
    )
    assert split(wrapped) == [wrapped[: wrapped.index(" Next")], "Next."]
    # A heading, list items, a line that ended its sentence and a new paragraph still split.
    assert split("# Dense loaves\nWhy they happen\n- cold kitchen\n- short proof") == [
        "# Dense loaves",
        "Why they happen",
        "- cold kitchen",
        "- short proof",
    ]
    assert split("It ends here.\nlowercase goes on as its own.\n\nnew paragraph") == [
        "It ends here.",
        "lowercase goes on as its own.",
        "new paragraph",
    ]
    assert split("第一行\n第二行") == ["第一行", "第二行"]


def test_a_long_title_is_cut_in_the_label_and_kept_in_the_manifest() -> None:
    title = "Annual report on the icing of turbine blades in the wet northern winters of 2024"
    chunks = chunked(record("report", title), ANSWER, per_chunk=1)
    result = _assemble(ranked(chunks, [0]), "turbine blades ice", None)
    label = result.rendered.splitlines()[0]
    assert label.startswith("### Annual report on the") and label.endswith("…")
    assert COUNTER.count(label) < COUNTER.count(f"### {title}")
    assert result.manifest["included"][0]["title"] == title


def test_a_budget_too_small_for_the_best_passage_holds_a_cheaper_one() -> None:
    # The best passage's label (an insight's, with its type and title) costs more than the
    # budget; a source's shorter label and its one sentence fit, so the context is not refused.
    insight = record("r0", "Gusts on the northern hills", ItemType.INSIGHT)
    source = record("r1", "", ItemType.SOURCE)
    offered = chunked(insight, "wind. wind.", per_chunk=1, overlap=0) + chunked(
        source, "wind.", per_chunk=1, overlap=0
    )
    chunks = ranked(offered, range(len(offered)))
    alone = _assemble(chunks[1:], "wind", None).total_tokens
    result = _assemble(chunks, "wind", alone)
    assert _assemble(chunks[:1], "wind", None).total_tokens > alone
    assert [one.record.id for one in result.passages] == [source.id]
    assert result.total_tokens == COUNTER.count(result.rendered) <= alone


def test_a_short_sentence_between_two_chosen_ones_joins_them() -> None:
    first = "The turbine blades ice over in wet air."
    last = "The turbine blades ice over in cold air."
    question = "turbine blades ice"
    for middle, joined in (
        ("It is so.", True),
        ("Crews log every routine figure of the year in the long table at the depot.", False),
    ):
        chunks = chunked(record("report", "Report"), f"{first} {middle} {last}", per_chunk=3)
        # The floor leaves the middle sentence out for its relevance: only a join brings it in,
        # and only when it costs no more than the handle and gap marker it saves.
        result = _assemble(ranked(chunks, [0]), question, None, floor=0.9)
        texts = [one.text for one in result.passages]
        if joined:
            assert texts == [f"{first} {middle} {last}"]
        else:
            assert texts == [first, last]
            assert middle not in result.rendered
        assert result.total_tokens == COUNTER.count(result.rendered)


def _scored(chunks: list[RankedChunk], scores: list[float]) -> list[RankedChunk]:
    return [replace(one, score=score) for one, score in zip(chunks, scores, strict=True)]


def test_a_record_search_found_about_as_good_comes_before_more_of_the_first() -> None:
    report = chunked(
        record("report", "Blade report"), f"{ANSWER} {ANSWER_TWO}", per_chunk=1, overlap=0
    )
    manual = chunked(record("manual", "Manual"), MANUAL, per_chunk=1, overlap=0)
    question = "when do turbine blades ice over?"
    # Room for two passages: the report's second sentence or the manual's.
    room = _assemble(ranked([*report, *manual], [0, 2]), question, None).total_tokens + 2
    # Search put the report's two chunks first and second, the manual third.
    order = ranked([*report, *manual], [0, 1, 2])
    # Its score close to the best: the manual is one more relevant record.
    close = _assemble(_scored(order, [1.0, 0.99, 0.98]), question, room)
    assert {one.record.id for one in close.passages} == {"source:report", "source:manual"}
    # Far below the best: not worth the report's second sentence.
    far = _assemble(_scored(order, [1.0, 0.9, 0.05]), question, room)
    assert {one.record.id for one in far.passages} == {"source:report"}
    assert ANSWER_TWO in far.rendered
    for result in (close, far):
        assert result.total_tokens == COUNTER.count(result.rendered) <= room


def test_a_long_sentence_that_answers_is_sent_rather_than_short_filler_before_it() -> None:
    # The room holds either the long answer or a short matching record with the cheap filler
    # sentence after the answer; the long answer alone holds more. (Partial enumeration is
    # exercised by test_room_that_fits_two_answers_as_sent_holds_both: charged as sent, greedy
    # by ratio alone takes the answer here.)
    answer = (
        "Rime ice builds on the leading edge of the turbine blades within an hour whenever "
        "supercooled fog drifts across the ridge at dawn."
    )
    study = chunked(
        record("a", "Icing"),
        f"{answer} The ridge road was paved in spring 0.",
        per_chunk=2,
        overlap=0,
    )
    log = chunked(record("b", "Log"), "Blades iced 0. Blades iced 1.", per_chunk=2, overlap=0)
    chunks = _scored(ranked([study[0], log[0]], [0, 1]), [1.0, 0.9])
    # Room for the answer, not for the answer and the road after it (45 tokens as sent).
    result = _assemble(chunks, "when does rime ice build on turbine blades?", 44)
    assert answer in result.rendered
    assert "paved" not in result.rendered
    assert result.total_tokens == COUNTER.count(result.rendered) <= 44


def test_a_records_worth_falls_with_how_far_its_best_hit_is_above_the_background() -> None:
    first = chunked(record("first", "First"), "The blades ice over.", per_chunk=1, overlap=0)
    second = chunked(record("second", "Second"), "The blades turn.", per_chunk=1, overlap=0)
    question = query_terms("when do the blades ice over?")
    worth = {}
    for score in (0.9, 0.1):
        chunks = _scored(ranked([*first, *second], [0, 1]), [1.0, score])
        units = units_of(chunks, question, type_weights={"source": 1.0})
        worth[score] = {unit.record.id: unit.worth for unit in units}
    assert worth[0.9]["source:first"] == worth[0.1]["source:first"] == 1.0
    # Same rank, nine times closer to the background: worth (prior x score share) falls by
    # 9 x sqrt(9) = 27, not only by the prior's sqrt(9).
    ratio = worth[0.9]["source:second"] / worth[0.1]["source:second"]
    assert abs(ratio - 27.0) < 1e-9


def test_the_questions_terms_next_to_each_other_count_as_a_phrase() -> None:
    apart = "Time and again a polynomial bound appears."
    together = "A polynomial time bound appears again."
    chunks = chunked(record("notes", "Notes"), f"{apart} {together}", per_chunk=2)
    units = units_of(
        ranked(chunks, [0]), query_terms("what is polynomial time?"), type_weights={"source": 1.0}
    )
    value = {unit.text: unit.value for unit in units}
    assert value[together] > value[apart]
    # The same terms, and the phrase's sentence is no longer: only the phrase lifts it.
    assert len(together) <= len(apart)


def test_a_sentence_holding_the_whole_question_outranks_a_better_chunk_sharing_its_topic() -> None:
    # Two one-sentence chunks, scored alike: the first holds only the topic word both share,
    # the second every term of the question.
    topic = chunked(record("topic", "Topic"), "The turbines stand on the ridge.", per_chunk=1)
    answer = chunked(record("answer", "Answer"), "The turbines ice over in fog.", per_chunk=1)
    chunks = _scored(ranked([*topic, *answer], [0, 1]), [1.0, 1.0])
    units = units_of(chunks, query_terms("do turbines ice?"), type_weights={"source": 1.0})
    value = {unit.record.id: unit.value for unit in units}
    # Rank alone puts the first at sqrt(2) times the second; the coverage turns it round.
    assert value["source:answer"] > value["source:topic"]


def test_a_question_term_matches_its_variants_one_edit_away() -> None:
    # The stemmer keeps Buddhist and Buddhism apart; a typo in the question matches nothing.
    faith = "Buddhism has grown in the state since the census."
    other = "Christianity has shrunk in the state since 1990s."
    assert len(other) == len(faith)
    chunks = chunked(record("census", "Census"), f"{other} {faith}", per_chunk=2)
    for question in ("how many are Buddhist?", "how many are Budhism?"):
        units = units_of(ranked(chunks, [0]), query_terms(question), type_weights={"source": 1.0})
        value = {unit.text: unit.value for unit in units}
        assert value[faith] > value[other], question
    # Words that differ in their first letters are different words ("season", "reason").
    units = units_of(
        ranked(chunks, [0]), query_terms("how many are Cuddhism?"), type_weights={"source": 1.0}
    )
    value = {unit.text: unit.value for unit in units}
    assert value[faith] <= value[other]


def test_records_of_one_title_share_their_label_and_pay_it_once() -> None:
    # Paragraphs of one article stored as sources of their own: one title, three records.
    texts = [
        "The turbine blades ice over in wet air.",
        "Crews heat the turbine blades when ice forms.",
        "Ice on the blades slows the turbine down.",
    ]
    paragraphs = [
        chunked(record(f"p{index}", "Wind farm"), text, per_chunk=1)[0]
        for index, text in enumerate(texts)
    ]
    other = chunked(record("other", "Weather"), "Wet air freezes on the blades.", per_chunk=1)
    offered = ranked([*paragraphs, *other], [0, 3, 1, 2])
    for fmt, label in ((RenderFormat.MARKDOWN, "### Wind farm"), (RenderFormat.XML, "<source ")):
        result = _assemble(offered, "turbine blades ice", None, fmt=fmt)
        assert {one.record.id for one in result.passages} >= {one.record.id for one in paragraphs}
        assert result.rendered.count("Wind farm") == 1
        if fmt is RenderFormat.MARKDOWN:
            assert result.rendered.count(label) == 1
        else:
            assert result.rendered.count(label) == 2  # Wind farm's, and Weather's
            assert result.rendered.count("</source>") == 2
        assert result.total_tokens == COUNTER.count(result.rendered)
        # The records of one label follow each other; each number maps to its own record.
        numbers = {one.record.id: one.number for one in result.passages}
        assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))
        for one in result.passages:
            opening = '<passage n="{}">' if fmt is RenderFormat.XML else "[{}] "
            assert opening.format(one.number) + one.text in result.rendered
        titles = [one.record.title for one in result.passages]
        assert titles == sorted(titles, key=titles.index)


def test_a_chunk_search_put_first_outweighs_a_term_match_further_down() -> None:
    # The question's words sit in a lower-ranked chunk; the first one holds the answer in other
    # words. Holding the first chunk whole is worth more per token than a stray matching
    # sentence of a chunk search put far below it.
    first = chunked(
        record("first", "Report"),
        "The crews saw frost on every rotor in January. It melted by noon.",
        per_chunk=2,
    )
    far = chunked(
        record("far", "Log"), "Blades ice in wet air, they say, now and then.", per_chunk=1
    )
    chunks = _scored(ranked([*first, *far], [0, 1]), [1.0, 0.2])
    units = units_of(chunks, query_terms("when do blades ice?"), type_weights={"source": 1.0})
    by_text = {unit.text: unit for unit in units}
    melted = by_text["It melted by noon."]
    stray = by_text["Blades ice in wet air, they say, now and then."]
    assert melted.value / len(melted.text) > stray.value / len(stray.text)


def _cut_at(owner_key: str, text: str, cuts: list[int]) -> list[RankedChunk]:
    """The record's chunks as the chunker cuts them: at each offset in ``cuts`` (a space), the
    space dropped between two chunks."""
    owner = record(owner_key, "Wind farm")
    bounds = [0, *cuts, len(text)]
    chunks: list[RankedChunk] = []
    for ord_, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        start += 0 if ord_ == 0 else 1  # the space at the cut is in neither chunk
        assert text[start - 1 : start] in ("", " ")
        chunks.append(
            RankedChunk(owner, f"chunk:{ord_}", ord_, start, end, text[start:end], 0, section=())
        )
    return chunks


def test_a_sentence_cut_between_two_consecutive_chunks_is_sent_whole_as_one_passage() -> None:
    long = (
        "The blades ice over when the air is wet and the temperature is at or just below "
        "freezing, and the production of the farm falls by 68 000 megawatt hours in a winter."
    )
    text = f"Wind farm report. {long} Crews heat the blades."
    # The chunker cut the long sentence at the space inside "68 000" and dropped that space.
    chunks = _cut_at("cut", text, [text.index(" 000")])
    assert chunks[0].text.endswith("by 68") and chunks[1].text.startswith("000 megawatt")
    result = _assemble(ranked(chunks, [1, 0]), "how much production falls when blades ice?", None)
    assert long in result.rendered
    assert "…" not in result.rendered  # nothing of the record is left out between them
    assert len(result.passages) == 1
    passage = result.passages[0]
    assert passage.text == text[passage.char_start : passage.char_end] == text
    assert passage.chunk_ids == ("chunk:0", "chunk:1")
    assert result.total_tokens == COUNTER.count(result.rendered)


def test_chunks_apart_in_the_record_keep_their_gap_marker() -> None:
    text = "Wind farm report. The blades ice over in wet air. Crews heat the blades in winter."
    cuts = [text.index(" The"), text.index(" Crews")]
    chunks = _cut_at("apart", text, cuts)
    # The middle chunk is not offered: the text between the other two is left out.
    result = _assemble(ranked(chunks, [0, 2]), "wind farm crews", None)
    assert [one.ord for one in result.passages] == [0, 2]
    assert "\n…\n" in result.rendered
    assert "The blades ice over" not in result.rendered


def test_consecutive_chunks_of_two_sections_keep_the_heading_between_them_out() -> None:
    text = "## Icing\n\nThe blades ice over in wet air.\n\n## Crews\n\nCrews heat the blades."
    first = text.index("The blades")
    second = text.index("Crews heat")
    owner = record("sections", "Wind farm")
    spans = [(first, text.index("\n\n## Crews")), (second, len(text))]
    chunks = [
        RankedChunk(owner, f"chunk:{n}", n, a, b, text[a:b], 0, section=(heading,))
        for n, ((a, b), heading) in enumerate(zip(spans, ("Icing", "Crews"), strict=True))
    ]
    result = _assemble(ranked(chunks, [0, 1]), "blades ice crews heat", None)
    # Two passages: a heading lies between the chunks, so they are not one text.
    assert [one.ord for one in result.passages] == [0, 1]
    for passage in result.passages:
        assert passage.text == text[passage.char_start : passage.char_end]
    unknown = [replace(one, section=None) for one in chunks]
    assert len(_assemble(ranked(unknown, [0, 1]), "blades ice crews heat", None).passages) == 2


def test_a_sentence_cut_between_chunks_is_not_paid_a_short_chunks_worth_over_and_over() -> None:
    # The chunker cut a long sentence just before its end: the short tail is a chunk of its own,
    # and search put that tail first. The whole sentence holds all of the tail chunk and part
    # of the other: it is worth at most what all of the best chunk is (its prior, times the most
    # a sentence's coverage lifts it, and CHUNK_SHARE of its worth), not that chunk's worth once
    # for every tail's length of the sentence.
    long = (
        "The blades of the farm ice over when the air is wet and the temperature is at or just "
        "below freezing, which happens on most winter mornings along the northern coast, and the "
        "crews then run the heaters for hours before the rotors turn again, losing a day."
    )
    text = f"Wind farm report. {long}"
    chunks = _scored(ranked(_cut_at("tail", text, [text.rindex(" a day.")]), [1, 0]), [1.0, 0.5])
    assert chunks[0].text == "a day." and chunks[0].rank == 1
    units = units_of(chunks, query_terms("when do the blades ice over?"), type_weights={})
    sentence = next(unit for unit in units if unit.text == long)
    assert {one.ord for one in sentence.chunks} == {0, 1}
    best_prior = best_worth = 1.0  # rank 1, the best score
    assert sentence.value <= best_prior * math.exp(1 - COVERAGE_PIVOT) + CHUNK_SHARE * best_worth


def test_the_selection_charges_a_passage_what_the_rendering_counts() -> None:
    # Numbers, gap markers and the text between joined sentences are charged what they add
    # where they are sent (a line break merges with the full stop before it, a space with the
    # word after it), not what each counts alone: charged alone, every passage cost about two
    # tokens more than it is sent with, and the room left over went unused.
    paragraphs = [" ".join(FILLER[first : first + 4]) for first in range(0, 24, 4)]
    text = "\n\n".join(paragraphs)
    owner = record("report", "Annual report")
    chunks = chunked(owner, text)
    units = units_of(
        ranked(chunks, range(len(chunks))), query_terms("routine figures"), type_weights={}
    )
    assert any(unit.before == "\n\n" for unit in units)
    # Three passages: two sentences across a paragraph break, one alone, two in a paragraph.
    chosen = [3, 4, 9, 14, 15]
    costs = costs_of(COUNTER, RenderFormat.MARKDOWN)
    best = max(unit.value for unit in units)
    (block,) = blocks_of(units, chosen, best, COUNTER, RenderFormat.MARKDOWN)
    assert [len(passage.text) > 0 for passage in block.passages] == [True] * 3
    starts = [3, 9, 14]
    charged = (
        # A label is charged one line break besides its text: the blank line before it merges
        # with the full stop of the passage before, the line break after it does not merge.
        costs.label(owner)
        + sum(costs.unit(units[index]) for index in chosen)
        + sum(costs.join(units[index]) for index in chosen if index not in starts)
        + sum(costs.handle(units[index]) for index in starts)
        + costs.gap * (len(starts) - 1)
    )
    assert charged == COUNTER.count(block.block)


def test_room_that_fits_two_answers_as_sent_holds_both() -> None:
    # The two answers in two passages under one label are 45 tokens as sent. Charged what each
    # part counts alone (the second number's line break and the gap marker's, merged as sent
    # with the full stops before them, counted again), they came to more than 45, and the
    # second answer was left out of room it fits in.
    sentences_ = list(FILLER)
    sentences_[5], sentences_[20] = ANSWER, ANSWER_TWO
    chunks = chunked(record("report", "Annual report"), " ".join(sentences_))
    offered = _scored(
        ranked(chunks, range(len(chunks))), [1.0 - n / 50 for n in range(len(chunks))]
    )
    result = _assemble(offered, "when do blades ice over in freezing fog and heaters run?", 45)
    assert ANSWER in result.rendered
    assert ANSWER_TWO in result.rendered
    assert result.total_tokens == COUNTER.count(result.rendered) <= 45


def test_a_heading_is_one_unit_with_the_sentence_it_opens() -> None:
    text = "# Starters\n\n## Drying a starter\n\nFor travel, dry it on paper. Soak it to revive it."
    owner = record("dry", "Starters")
    chunk = RankedChunk(owner, "chunk:0", 0, 0, len(text), text, 1, section=())
    units = [draft.text for draft in drafts_of([chunk])]
    # No unit is a heading alone: a heading names words of a question and says nothing itself.
    assert units == [
        "# Starters\n\n## Drying a starter\n\nFor travel, dry it on paper.",
        "Soak it to revive it.",
    ]


def test_a_sentence_holding_all_of_one_thing_asked_counts_as_covering_it() -> None:
    # "Who founded the abbey" is two of the question's eight terms; the sentence that answers it
    # holds both, and the other holds three terms of the second thing asked.
    question = (
        "Who founded the abbey, and when did the monks move the abbey library to the new town?"
    )
    founded = "Duke Robert founded the abbey."
    moved = "Later the monks moved their books to a town."
    chunks = _scored(
        ranked(
            [
                *chunked(record("moved", "Library"), moved, per_chunk=1),
                *chunked(record("founded", "Founding"), founded, per_chunk=1),
            ],
            [0, 1],
        ),
        [1.0, 1.0],
    )
    parts = [query_terms(part) for part in question_parts(question, "en")]
    assert len(parts) == 2

    def values(asked: list[list[str]]) -> dict[str, float]:
        units = units_of(chunks, query_terms(question), type_weights={"source": 1.0}, parts=asked)
        return {unit.text: unit.value for unit in units}

    # Read as one question, the founding holds a quarter of it and ranks second besides.
    assert values([])[founded] < values([])[moved]
    # Read as the two things it asks, the founding is all of one of them.
    assert values(parts)[founded] > values(parts)[moved]


STORAGE = (
    "## Refrigerator storage\n\nA starter used once a week can live in the refrigerator. "
    "It will keep for a week or two between feeds."
)
KEEPS = "It will keep for a week or two between feeds."


def _storage_values(section: tuple[str, ...] | None, question: str) -> dict[str, float]:
    """The units' values of the storage section's one chunk, read as under ``section``."""
    owner = record("storage", "Maintaining a starter")
    chunk = RankedChunk(owner, "chunk:0", 0, 0, len(STORAGE), STORAGE, 1, section=section)
    parts = [query_terms(part) for part in question_parts(question, "en")]
    asked = parts if len(parts) > 1 else []
    units = units_of([chunk], query_terms(question), type_weights={"source": 1.0}, parts=asked)
    return {unit.text: unit.value for unit in units}


def test_a_sentence_holds_the_question_terms_of_its_sections_heading() -> None:
    # "It will keep..." holds none of the question's words; its section's heading says it is
    # about the refrigerator.
    question = "How long can a starter live in the refrigerator?"
    headed = _storage_values(("Maintaining a starter", "Refrigerator storage"), question)
    elsewhere = _storage_values(("Maintaining a starter", "Weekly routine"), question)
    unknown = _storage_values(None, question)
    assert headed[KEEPS] > elsewhere[KEEPS]
    # Only the section's own heading counts (the title is about the whole document), and a
    # chunk whose section is not known is read by its text alone.
    titled = _storage_values(("Refrigerator storage", "Weekly routine"), question)
    assert titled[KEEPS] == elsewhere[KEEPS] == unknown[KEEPS]


def test_a_question_asking_two_things_is_covered_by_the_sentences_own_words() -> None:
    # Each part of a question asking several things is a few terms: a heading holding one of
    # them would make every sentence of its section all of that part.
    question = "How long can a starter live in the refrigerator, and how often is it used?"
    headed = _storage_values(("Maintaining a starter", "Refrigerator storage"), question)
    elsewhere = _storage_values(("Maintaining a starter", "Weekly routine"), question)
    assert headed[KEEPS] == elsewhere[KEEPS]


def test_what_a_chosen_unit_gives_back_is_what_its_rendering_costs() -> None:
    # Three records, two of them under one label; the first's sentences chosen with gaps
    # between some of them.
    text = " ".join(FILLER[:8])
    digest = "The digest says the blades ice over in wet winter air."
    chunks = ranked(
        [
            *chunked(record("report", "Annual report"), text, per_chunk=8, overlap=0),
            *chunked(record("manual", "Manual"), MANUAL, per_chunk=8, overlap=0),
            *chunked(record("digest", "Annual report"), digest, per_chunk=8, overlap=0),
        ],
        [0, 1, 2],
    )
    units = units_of(chunks, query_terms("turbine blades ice"), type_weights={"source": 1.0})
    costs = costs_of(COUNTER, RenderFormat.MARKDOWN)
    board = board_of(units, costs, 0.0, Wording(units))
    best = max(unit.value for unit in units)
    texts = [unit.text for unit in units]
    # Sentences 0-2 and 4 of the report (3 is left out, so 4 opens a passage), the manual and
    # the digest (under the report's label).
    chosen = [0, 1, 2, 4, texts.index(MANUAL), texts.index(digest)]

    def counted(indices: list[int]) -> int:
        blocks = blocks_of(units, indices, best, COUNTER, RenderFormat.MARKDOWN)
        return COUNTER.count(SEPARATOR.join(block.block for block in blocks))

    whole = counted(chosen)
    for index in chosen:
        without = counted([one for one in chosen if one != index])
        # The costs are charged part by part: within a token or two of the rendering.
        assert abs(released(units, index, chosen, board, costs) - (whole - without)) <= 2
    # A sentence between two chosen ones gives back less than its own text: the passage it
    # joins splits in two, with a number and gap marker between.
    assert released(units, 1, chosen, board, costs) < board.tokens[1]
    # The manual's only sentence gives back its label too; the digest's, only the blank line
    # between the records under the report's label.
    alone, shared = texts.index(MANUAL), texts.index(digest)
    assert released(units, alone, chosen, board, costs) > board.tokens[alone] + costs.handle(
        units[alone]
    )
    assert released(units, shared, chosen, board, costs) == (
        board.tokens[shared] + costs.separator + costs.handle(units[shared])
    )


def test_over_the_count_the_least_valuable_unit_that_frees_the_room_goes() -> None:
    first = "The turbine blades ice over in wet air."
    last = "The turbine blades ice over in cold air."
    costs = costs_of(COUNTER, RenderFormat.MARKDOWN)
    for middle in ("It is so.", "It is so, as the crews at the depot have said for many years."):
        chunks = ranked(
            [
                *chunked(record("report", "Report"), f"{first} {middle} {last}", per_chunk=3),
                *chunked(record("manual", "Manual"), f"{MANUAL} {FILLER[0]}", per_chunk=3),
            ],
            [0, 1],
        )
        units = units_of(chunks, query_terms("turbine blades ice"), type_weights={"source": 1.0})
        board = board_of(units, costs, 0.0, Wording(units))
        best = max(unit.value for unit in units)
        texts = [unit.text for unit in units]
        chosen = (texts.index(first), texts.index(middle), texts.index(last), texts.index(MANUAL))
        # The middle sentence is worth least; what it gives back is its text less the number
        # and gap marker that would split the passage around it.
        assert min(chosen, key=lambda index: units[index].value) == texts.index(middle)
        gives_back = released(units, texts.index(middle), chosen, board, costs)
        assert gives_back < board.tokens[texts.index(middle)]
        picked = Picked(chosen, {}, {}, Stop.BUDGET, board.tokens)
        whole = _fit(units, picked, best, COUNTER, RenderFormat.MARKDOWN, None, {}, board, costs)
        for over in sorted({max(1, gives_back), max(1, gives_back) + 1}):
            fitted = _fit(
                units,
                picked,
                best,
                COUNTER,
                RenderFormat.MARKDOWN,
                whole.total - over,
                {},
                board,
                costs,
            )
            assert fitted.total <= whole.total - over
            assert len(fitted.picked.chosen) == len(chosen) - 1
            # It goes when it frees the room; otherwise a unit that does goes.
            assert (middle in fitted.rendered) is (gives_back < over)
