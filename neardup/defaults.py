"""The tuned constants of neardup's steps, in one place, each with why it has its value.

``Params`` holds what a user chooses and what an index stores (shingles, MinHash, banding, the
threshold and rule): its fingerprint decides whether stored signatures can be compared. The
values here are different: the choices made once, by measurement on the development suite
(``benchmarks/accuracy``), inside the steps that read the data (the valley, the checks, the
weighted link, the choice of parameters). They are not stored with an index nor part of its
fingerprint (changing one changes what a report decides, never what is stored), so an index
built before they moved here opens as it did. The steps read them as ``DEFAULTS.<name>`` when
they run (a test changes one by replacing a module's ``DEFAULTS`` with
``dataclasses.replace(DEFAULTS, ...)``); two old names stay for the CLI and ``index.py``
(``neardup.candidates.buckets.DEFAULT_MAX_BUCKET``, ``neardup.choose.SAMPLE``), read from here. More
of the measurements behind the values are in the docstrings of the modules that use them.

A leaf module: it imports nothing of neardup, so every step can read it without a cycle.

>>> DEFAULTS.valley_fallback, DEFAULTS.link_top_k
(0.5, 5)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Defaults:
    """One field per tuned constant, grouped by the step that reads it."""

    # -- candidates (neardup.sign.banding, neardup.candidates.buckets)
    # ----------------------------------------
    #: The chance that a pair exactly at the threshold becomes a candidate; pairs above it are
    #: more likely still, and verification removes the false candidates this lets in.
    target_recall: float = 0.99
    #: Buckets of more records than this need a second shared band. Chosen on the development
    #: suite (benchmarks/accuracy): at 10 no development dataset's F1 moved by more than 0.002
    #: from the unbounded candidates' (at 4, FEBRL 2 and the documents lost recall); 20 keeps a
    #: margin of two. On random short records (benchmarks.corpus.short_records) the candidates
    #: per record went from 5.8, 11.6, 23.8, 47.8 at 10k, 20k, 40k, 80k (twice as many at each
    #: doubling) to 4.1, 6.3, 9.6, 13.7 and 18.5 at 160k.
    max_bucket: int = 20
    #: More records than this with the same key in every band (one text repeated) are each
    #: paired with the group's first record only (neardup.candidates.buckets._identical): all
    #: their pairs would grow with the square of the group (3,000 copies of one text took 88 s,
    #: 100,000 ran out of memory). Real groups stay under it and keep every pair: the largest
    #: in the suite is one company name written 263 times among 2,379 patent applicants, whose
    #: pairwise F1 fell from 0.850 to 0.193 when groups of more than max_bucket were starred.
    #: A bucket of more than this many records pairs each member with a few neighbours
    #: (neardup.candidates.buckets._windowed_pairs) for the same reason.
    repeated_group: int = 1000
    #: Smaller groups keep every pair while all their pairs together are at most this many a
    #: record (of the records in a shared bucket, counted as at least :attr:`identical_records`);
    #: past it the largest groups are starred too (neardup.candidates.buckets.star_bound).
    #: Why: 20 texts of 1,000 copies each made 10M pairs, a report of over 180 s where 20 of
    #: 1,001 took 3.4 s. The patent applicants hold 26 such pairs a record (63,083 among
    #: 2,379; their F1 needs them all); the candidate cap allows 100 a record.
    identical_pairs: int = 50
    identical_records: int = 5000
    #: A large bucket whose members would pair again in more than this many times its own pairs
    #: is a cluster of near-copies: its pairs are enumerated once and filtered instead.
    coherent: float = 2.0
    #: A record with more candidates than this keeps the this-many sharing the most bands
    #: (neardup.candidates.buckets.cap_per_record). On 100k records of short tokens (w0..w49999)
    #: banding at the 0.3 floor gave 66M candidates, 660 a record; at 100 a record 7.5M, with
    #: the same planted pairs found. Real-word records (4.0M candidates) lost 4% of them and
    #: no true pair, 100k documents 460 of 1.0M; every dataset of the suite kept its F1
    #: (affiliations +0.002). Large true clusters are not cut: see cap_protect_jaccard.
    candidate_cap: int = 100
    #: Pairs whose shared bands say about this Jaccard or more are never capped (a pair at it
    #: shares bands * J ** rows bands on average): a record in a cluster of hundreds of near
    #: copies (a much-cited paper) keeps every partner.
    cap_protect_jaccard: float = 0.6
    #: A report of an index of at most this many records signs them again and groups the
    #: bands in numpy (neardup.candidates.buckets.signature_candidates) instead of asking the index
    #: for each band's buckets: the report of 100k short records took 10.8 s instead of
    #: 21.6 s; of 100k documents 11.5 s instead of 13.1-13.9 s, once their texts came
    #: uncompressed in pages of 10,000 (2.5 s; 7.5 s before, when documents kept the facets).
    #: The texts are read for verification either way; the signatures take 512 bytes a
    #: record (128 values), 256 MB at this bound; larger indexes read the buckets from the
    #: index (measured to 10M). A memory index bands the signatures it kept at any size: its
    #: buckets would need every record's band keys as strings (1M documents: past 11 GB).
    scan_records: int = 500_000
    #: An index shingled by characters (short records: the choice for records of at most
    #: :attr:`record_words` words) is signed again up to this many times :attr:`scan_records`:
    #: its texts are short, so the signatures are most of what the report holds. 1M short
    #: records (19.0M candidates): the report took 39 s and a 2.1 GB peak signed again, 109 s
    #: and 1.6 GB reading 32 bands' buckets from the index (Solr's CPU 23 s against 61 s), the
    #: same pairs. 1M documents would hold 1.3 GB of text besides: they keep the bound.
    scan_char_factor: int = 2

    # -- the choice of parameters from the data (neardup.choose) ---------------------------------
    #: Records whose median length is at most this many words are records, not documents.
    record_words: int = 40
    #: How many of the first records are measured to choose.
    choose_sample: int = 1000
    #: The floor of the valley rule for character 3-grams: low enough that the valley between
    #: records without and with a duplicate lies above it on every dataset of the suite.
    record_floor: float = 0.3
    #: Bands x rows for the floor: 3-row bands keep the candidates bounded (a pair at Jaccard
    #: 0.2 is a candidate with chance 0.27, at 0.1 with 0.04; 2-row bands, which banding alone
    #: would choose for 0.3, made 790 candidates per record on the suite's German person
    #: records) while a pair at 0.4 is found with chance 0.93, at 0.5 with 0.995.
    record_bands: tuple[int, int] = (40, 3)
    #: A collection whose first write brings more records than this (a file's lines, a list's
    #: length: ``add_many(total=...)``) is banded from :attr:`large_record_floor` instead. Why:
    #: character 3-grams of English words make unrelated short records alike at Jaccard
    #: 0.15-0.3, and such pairs grow with the square of the records: at 1M short records the
    #: 40 x 3 bands gave 121M candidates (60M after the cap), a 385 s report and an 8.4 GB
    #: peak, 27x the time of 100k. The suite's datasets are far below this bound.
    large_records: int = 300_000
    #: The floor and bands x rows of such a collection: 4-row bands find a pair at Jaccard 0.2
    #: with chance 0.05 (0.27 with 3 rows) and at 0.1 with 0.003 (0.04), a pair at 0.5 with
    #: 0.87, at 0.6 with 0.985; the valley is then looked for above 0.4.
    large_record_floor: float = 0.4
    large_record_bands: tuple[int, int] = (32, 4)
    #: Documents: word 1-grams at this fixed threshold.
    document_threshold: float = 0.65
    #: Documents at the threshold whose Jaccard weighted by rarity is under this share little
    #: but words many records hold (a brand's boilerplate), and are dropped
    #: (neardup.decision.common_words). Edited copies of the suite's documents sit at 0.55 and
    #: up; products of one brand sharing its boilerplate at 0.5 and down (docs/accuracy.md).
    common_words_floor: float = 0.5
    #: ... made only where the pairs hold this many records: among fewer, every shared word
    #: looks common.
    common_words_records: int = 50
    #: Bands x rows of a collection of more than :attr:`large_records` documents (below it,
    #: banding chooses 32 x 4 for the threshold). Why: unrelated documents share their common
    #: words (word 1-grams at Jaccard 0.2-0.3), and at 1M 200-word documents the 32 x 4 bands
    #: gave 22.4M candidates (19.7M after the cap) and a 374 s report, 29x the time of 100k.
    #: 5-row bands find a pair at 0.3 with chance 0.06 (0.23 with 4 rows) and at 0.2 with 0.008
    #: (0.05), and a pair at the threshold with 0.95 (0.998), at 0.7 with 0.99, at 0.75 with
    #: 0.999.
    large_document_bands: tuple[int, int] = (25, 5)

    # -- verification (neardup.candidates.verify) -------------------------------------------------
    #: The word edit distance of a verified pair is measured up to this many words; past it,
    #: the pair's ``edit_distance`` is this plus one ("more than"), unless ``max_dist`` is
    #: given (then exact up to it). Why: the exact distance costs the product of the two
    #: lengths (bit-parallel, /64), so 190 pairs of 40,000-word documents took 26 s and 1,225
    #: pairs of 75,000 words did not end in 180 s (hostile sweep hx20, finding 3); with the
    #: bound, a pair costs its length times the bound at most. No record is this long: records'
    #: distances stay exact.
    edit_distance_cap: int = 10_000
    #: Word 1-grams ignore order and repetition: two long unrelated documents over one
    #: vocabulary have nearly equal word sets (20 random 20,000-word documents over 2,000
    #: words: Jaccard 1.0, with 19,970 of 20,000 words to edit). So a pair of documents (both
    #: of more than :attr:`record_words` words) verified on word 1-grams must also share at
    #: least this Jaccard of their word 2-grams (word order). Measured: the suite's documents
    #: (edited copies, 1-25% of words changed): every gold pair at word-set Jaccard >= 0.6 is at
    #: 0.225 or more; unrelated pairs of those documents at most 0.058; the sweep's random
    #: documents 0.003.
    document_order_floor: float = 0.1

    # -- the valley rule (neardup.decision.valley) -------------------------------------------------
    #: Width of the histogram's bins of records' best similarities.
    valley_width: float = 0.025
    #: The histogram starts this far above the floor, where banding's recall is still rising.
    valley_gap: float = 0.05
    #: How many times lower than both sides a bin must be to be the valley.
    valley_depth: float = 2.5
    #: Records a bin must hold, smoothed, on the thinner side of a valley for the valley to be
    #: read: on a 22-row file two records a bin made a "2.7x deep" valley at 0.825 that cut 5
    #: of 7 true pairs (hostile sweep hx22). No dataset of the suite lost its valley at 3
    #: (their sides hold tens of records a bin), but 164 new restaurants did (report of new
    #: records: 107 pairs at the valley, 82 at the fallback): more than two records a bin.
    valley_min_side: float = 2.5
    #: A valley at or above this similarity parts near copies from exact ones, not matches
    #: from non-matches, and is passed over: business records a sixth of them exact copies, the
    #: near duplicates spread from 0.5 to 0.9 with no valley among them, were cut at 0.9
    #: (F1 0.35; 0.85 at the fallback). No development dataset has a valley above 0.65.
    valley_top: float = 0.85
    #: How many times deeper plain Jaccard's valley must be than weighted Jaccard's to be
    #: chosen over it: rarity is evidence plain Jaccard lacks, and a depth is read off a noisy
    #: histogram, so a slightly deeper plain valley is no reason to drop it (docs/accuracy.md).
    valley_plain_margin: float = 1.5
    #: Without a valley: the threshold at which character 3-grams of records kept the most F1
    #: on the development suite where no valley showed. Forced through the whole rule (checks
    #: and completion) at 0.4 / 0.45 / 0.5 / 0.55 / 0.6, F1: affiliations .333 / .362 / .377 /
    #: .364 / .336, patents .829 / .828 / .864 / .846 / .844, generated citations .932 / .922 /
    #: .943 / .808 / .650, generated music .796 / .842 / .836 / .777 / .643.
    valley_fallback: float = 0.5
    #: Without a valley, the pairs that stand out by weighted similarity are added to the
    #: fallback's (neardup.decision.standout), up to this many records: every record's TF-IDF
    #: vector is held in one process, and finding each record's nearest ones costs about 7 s
    #: at 100,000 short records, against 1.3 s for the whole report without it. Added, F1:
    #: FEBRL 1 .990 -> 1.000, generated citations .945 -> .949, affiliations .390 -> .393,
    #: patents and generated music the same; Walmart and Amazon written in one file, pairs
    #: across the two: .363 -> .527.
    standout_records: int = 100_000
    #: ... and only pairs at least this similar (cosine): in a small file a record's one
    #: neighbour stands out however little it shares ("garden hose with wheels", "desk lamp
    #: with shade"). 0.4 cost nothing on those datasets; 0.5 began to cost FEBRL 1.
    standout_floor: float = 0.4
    #: ... and only where at least this share of the pairs standing out are at the fallback's
    #: bar too: the two rules then see the same matches, and what the relative rule adds is
    #: more of them. Where they disagree, standing out is no evidence: German person records
    #: (rldata10000), whose best neighbour stands out for a non-match as often as not, share
    #: 32% (F1 .966 -> .668 had the pairs been added); the suite's datasets without a valley
    #: share 58-98%.
    standout_agreement: float = 0.5
    #: Where the valley is read, the candidates below it that stand out are added to its pairs
    #: (neardup.decision.families) only where at least this share of those candidates are of
    #: records that agree on half their columns (siblings: tracks of one album): hx23's music
    #: catalogue .82, the suite's German person records (rldata500) .03, where 15 pairs that
    #: stand out below the valley are all non-matches.
    families_share: float = 0.5
    #: ... and only where at least this share of the valley's pairs stand out too (hx23's music
    #: catalogue: 7 of 8).
    families_agreement: float = 0.5
    #: Where the valley shows no cut, a column of words (at least half letters) whose values
    #: differ in at least this share of the bar's pairs, where both records hold it, tells the
    #: members of a family apart (a track's title among its album's): whole-album catalogues
    #: .90-.93 (title), the households file's first names .72.
    families_telling: float = 0.8
    #: ... and a pair at the bar is kept only where those columns' values share at least this
    #: share of the shorter value's character 3-grams (``005-City`` within ``City``, ``Artist -
    #: Album - Title`` within ``Title``).
    families_contained: float = 0.6
    #: ... and only where at least this share of the pairs that stand out by weighted
    #: similarity (one partner each), of those whose records both hold the columns, are alike on
    #: them: whole-album catalogues .97-.99 (title); generated citations .77 (authors, written
    #: ``J. Smith`` and ``Smith, John`` in copies: F1 .949 -> .765 had the pairs been dropped).
    families_told: float = 0.9

    # -- the numbers check (neardup.decision.valley, neardup.decision.link) ------------------------
    #: Pairs at least this similar (Jaccard) keep their place whatever their numbers: nearly
    #: all of them are matches.
    numbers_waived_jaccard: float = 0.7
    #: The same for the weighted link's cosine (its counterpart of the Jaccard bar).
    numbers_waived_cosine: float = 0.7
    #: If more than this share of the pairs that alike share no number, numbers are not
    #: identifiers. On the development suite: identifiers 0-2.2% (restaurants' 2 of 89 the
    #: most), numbers in several forms 9% (generated music: lengths, two-digit years), 20%
    #: (citations), 29% (affiliations). The bar sits nearer the identifiers because the two
    #: mistakes differ in cost: the check made on music's numbers cut F1 from 0.836 to 0.623,
    #: while the check left out on the restaurants costs 0.025. The weighted link reads the
    #: data the same way.
    numbers_noisy: float = 0.05
    #: Fewer alike pairs holding numbers on both sides than this are too few to judge by (the
    #: valley rule then makes the check, the weighted link does not).
    numbers_min_pairs: int = 20

    # -- the dates check (neardup.decision.dates) ----------------------------------------------
    #: If more than this share of the kept pairs that agree on a full date agree only within a
    #: keying error, dates are typed in with errors here and the check is not made. FEBRL 1, 2
    #: and 3 (dates of birth with typos and whole dates replaced): 0.67%, 1.4%, 1.3% of their
    #: true pairs; generated customer files and the multilingual set: none.
    dates_noisy: float = 0.0025
    #: Fewer kept pairs agreeing on a date than this are too few to judge the dates by.
    dates_min_pairs: int = 10
    #: The dates of records of more words than this are not read: a document's.
    dates_max_words: int = 40
    #: The weighted link writes dates in one form (neardup.decision.date_forms): a source's
    #: ambiguous dates (07/03/1980) are read the way its unambiguous ones say (25/03/1980) where
    #: at least this many of them say a way ...
    date_order_min: int = 10
    #: ... and no more than this share of them say the other way (a day and month keyed the
    #: wrong way round); else its ambiguous dates are left as written.
    date_order_noisy: float = 0.05
    #: Two columns hold one kind of value (senders and receivers, home and away teams) where at
    #: least this share of the distinct values of the one with fewer are the other's too, over
    #: the kept pairs' records: a swap between them is another entity. Given names and surnames
    #: of the FEBRL sets share .13-.26 (their swapped copies are the same person).
    swaps_shared: float = 0.5
    #: A number more records hold than this share of them (and than ``numbers_common_min``)
    #: is no identifier: two records sharing it (a zip code, a year, "4gb") are not made one
    #: by it, and the weighted link's check reads their other numbers. The data's verdict
    #: (whether numbers identify records here) still reads every number. Weighted link,
    #: shares 0.003 / 0.01 / 0.03: Walmart-Amazon (D8) 0.753 -> 0.777 / 0.779 / 0.780, the
    #: held-out Chicago sites linked 0.822 -> 0.849 / 0.849 / 0.837 (two sites on one street
    #: and zip), IMDb-TMDb (D5) 0.873 -> 0.869 / 0.871 / 0.873, the other tasks unchanged.
    numbers_common_share: float = 0.01
    numbers_common_min: int = 10
    #: Where numbers identify records, a mapped pair ahead of both runner-ups by less than the
    #: margin holds when its records share a number of at least this many characters that
    #: neither runner-up holds (a model code, a phone number; a house number or "18th" is
    #: shorter): Abt-Buy (held out) 0.839 -> 0.875, D8 0.779 -> 0.784, D5 0.871 -> 0.873, D7
    #: 0.656 -> 0.655, the others unchanged. Any length: restaurants 0.965 -> 0.957 (two
    #: restaurants at one hotel's house number, "18th" street).
    link_code_length: int = 5
    #: Records of one source identical to each other and of at least this many words are one
    #: entity listed twice, linked as one: a song with its album, label and length, a product
    #: description written word for word. Fewer words are names that distinct entities share
    #: ("asian", a director's name, "editor's notes, sigmod record 2002"), of which a gold
    #: links one; they compete as before (docs/linking.md has the figures).
    link_twin_words: int = 15

    # -- the names check (neardup.decision.names; the weighted link) ----------------------------
    #: A record of at most this many words is a name, checked: longer ones hold descriptions,
    #: whose words differ between any two sources. At 6, two-word descriptions of one film
    #: ("(1999) drama") lost true pairs on the movie tasks; at 4, none on the development tasks.
    names_max_words: int = 4
    #: A word held by this share of its source's records (and by ``names_common_min`` of
    #: them) is a column's value ("actor", "guestStars") or a company's legal form ("inc"),
    #: not part of a name. With no such bound, a person's profession written one way by each
    #: catalogue cut a dozen true pairs; at 1%, common first names ("John", 2-3% of a list)
    #: were left out too, and "Anna Mortimer" and "John Mortimer" linked.
    names_common_share: float = 0.05
    names_common_min: int = 5
    #: Two records that share more words than this are no two names (a product and its
    #: description: "Dell XPS laptop", "Dell XPS notebook"). At 1 the development tasks keep
    #: their gain (D6 loses 2 of its 38 false pairs dropped).
    names_max_shared: int = 1

    # -- the columns check (neardup.decision.columns) ----------------------------------------------
    #: A kept pair whose columns give it less than this chance of a match is dropped: a low
    #: bar, since the valley kept it (0.1 and 0.05 differed by one restaurant pair).
    columns_cut: float = 0.05
    #: Pairs each side of the estimate is read from (a seeded sample beyond that): the
    #: estimate of a share per level needs thousands, not millions.
    columns_sample: int = 20_000
    #: Fewer kept or dropped pairs than this, and there is nothing to learn the columns from.
    columns_min_pairs: int = 20
    #: A kept pair is dropped when its columns' weight (log2 m/u) is this many bits below the
    #: best weight of each of its records (both have a match 2**10 times likelier): 9 to 12
    #: bits gave multilingual F1 0.913 to 0.923, below 9 the citations (copies in other
    #: styles) start to pay.
    columns_margin_bits: float = 10.0
    #: Character k-grams each column is compared by (those of the records' default shingles).
    columns_gram: int = 3
    #: A check that would drop more than this share of the kept pairs is not applied ... (the
    #: development suite's largest share 0.17, German person records; held-out citations,
    #: inventors 0.72 and 0.30, where 96-99% of the pairs it dropped were true: docs/accuracy.md)
    columns_max_share: float = 0.25
    #: ... where more than this share of the candidates below the threshold, which it learns
    #: non-matches from, are joined by the kept pairs through other records: matches, by the
    #: threshold's own pairs (held-out citations 33%, inventors 75%; hx27's colleagues at one
    #: company 1.4%, colour variants of one product 0%, where every pair it dropped was false).
    columns_joined_below: float = 0.05

    # -- the codes check (neardup.decision.codes) -------------------------------------------------
    #: A column holds codes (model numbers, part numbers) where it is filled in at least this
    #: share of the records read: a column most records leave empty tells few pairs apart.
    codes_filled: float = 0.5
    #: ... where at least this share of its values hold a digit: codes, not words (a brand).
    codes_digits: float = 0.8
    #: ... where at least this share are written as one token: a code, not a phrase (an
    #: address, a list of classes).
    codes_one_token: float = 0.9
    #: ... where its codes are at least this many letters and digits long (the median): a
    #: shorter one (a size, a count) is shared by unrelated records.
    codes_length: int = 4
    #: ... and where at least this share of them are distinct: a code names one entity, a
    #: price or a weight many.
    codes_distinct: float = 0.8
    #: ... and where fewer than this share of its values read as dates: a date is written in
    #: many ways, which letters and digits alone do not make one (the dates check reads them).
    codes_dates: float = 0.5
    #: The check is made on a code column only where fewer than this share of the kept pairs
    #: that fill it agree on it: copies with typos agree in most pairs, siblings in few.
    codes_agree: float = 0.5
    #: ... and where the codes of the kept pairs that disagree are alike beyond chance: their
    #: median character 3-gram Jaccard at least this many times that of records drawn at
    #: random ...
    codes_alike_ratio: float = 2.0
    #: ... and at least this much above it: a family's codes share most of their characters,
    #: a listing number that each re-listing changes shares none.
    codes_alike_margin: float = 0.2
    #: Fewer kept pairs filling a code column on both sides than this are too few to judge.
    codes_min_pairs: int = 10
    #: Records a code column is read over (a seeded sample of the candidates' records): shares
    #: need thousands, not millions.
    codes_sample: int = 5000
    #: Pairs of records drawn at random (seeded) that say how alike unrelated codes are.
    codes_random_pairs: int = 1000

    # -- the learned rule (neardup.decision.fellegi_sunter) ------------------------------------
    #: Dirichlet smoothing of every level count: no level is ever impossible.
    em_smoothing: float = 0.5
    #: EM stops after this many iterations ...
    em_iterations: int = 200
    #: ... or when no pair's posterior moved more than this.
    em_tolerance: float = 1e-7

    # -- the weighted link (neardup.decision: weights, topk, assign, link) ------------------------
    #: Character n-grams of TF-IDF: within words, they survive typos and re-ordered words, and
    #: were the representation whose best threshold was highest on the development tasks.
    weighted_gram: int = 4
    #: A gram held by at least this share of one source's records ...
    source_gram_share: float = 0.1
    #: ... and by less than this times that share of another's says which catalogue a record
    #: is of, not which entity: it weighs as a gram every record holds (neardup.decision.
    #: weights.source_idf). A fifth of one music catalogue's tracks written "- Remastered
    #: 2011": 14 -> 88 of 96 linked; the development tasks within 0.001 (at a share of 0.05:
    #: 94 of 96, D1 +0.004, D6 -0.002; at a ratio of 0.25, D6 -0.004).
    source_gram_ratio: float = 0.1
    #: ... where that share is this many records or more (a small source's chance words).
    source_gram_least: int = 10
    #: Candidates each record keeps in the other source: at least 2 (the runner-up is read from
    #: them); 5 found 98.7-100% of the findable links of the development tasks.
    link_top_k: int = 5
    #: A gram held by more records than this is left out of the search for candidates.
    link_purge: int = 1000
    #: How far ahead of both records' runner-ups a mapped pair must be, as a share of its own
    #: similarity: 0.1 was the best of 0.05-0.2 on three of the six development tasks and at
    #: most 0.024 F1 below the best on the others.
    link_margin: float = 0.1
    #: Fewer pairs standing out than this, and the columns are not weighed.
    columns_min_pairs: int = 20
    #: The joined text's share of a record's vector once its columns are weighed: columns
    #: alone lost on model numbers written otherwise, the joined text alone on long abstracts.
    joined_share: float = 0.5

    # -- clusters (neardup.decision.completion) ----------------------------------------------------
    #: A component is completed when its pairs cover at least this share of its possible pairs
    #: (more than two thirds: a chain of three records is never completed). The same bar merges
    #: two center clusters whose pairs between them are that dense (neardup.decision.cluster).
    complete_density: float = 0.7
    #: Components of fewer records are left alone (three records with all three pairs are
    #: complete already).
    complete_min_records: int = 4


#: The values every step reads.
DEFAULTS = Defaults()
