/*
 * neardup._kernel: MinHash signatures of many texts in one C call.
 *
 * Why it exists: in pure Python + numpy most of the time goes to building shingle strings
 * one slice at a time, calling mmh3 once per shingle and reducing 64-bit values mod p in numpy
 * (no fast path). This kernel does normalization (ASCII texts), shingling, MurmurHash3 and the
 * permutations without creating a Python object per shingle, and releases the GIL while it runs.
 *
 * It must give exactly the values of the numpy path in shingles.py (a test compares them on
 * random and adversarial texts). Definitions mirrored here:
 *   normalize: lower-case, ASCII punctuation except '-' -> space, split on whitespace, join
 *              with one space. Done here only for pure-ASCII texts; other texts arrive already
 *              normalized by Python (Unicode lower-casing and whitespace are Python's).
 *   word kind: n-grams of `size` words joined by one space = byte spans of the normalized text;
 *              fewer words than `size` -> the whole text is one shingle; empty -> no shingle.
 *   char kind: k-grams of `size` code points of the normalized text (UTF-8 spans).
 *   hash:      MurmurHash3 x86 32-bit of the UTF-8 bytes, seed 42 (as mmh3.hash, unsigned).
 *   xor:       sig[j] = min over distinct hashes x of (x ^ mask[j]).
 *   universal: sig[j] = min(min over x of (a[j]*x + b[j]) mod p, 0xFFFFFFFF), p = 2^32 + 15,
 *              a < 2^31 so a*x + b < 2^64.
 * Two helpers share the same care: normalize() (ASCII texts) and band_keys() (the LSH keys
 * "bNN_<16 hex digits>" of MurmurHash3 x64-128 of each band's little-endian bytes).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SHINGLE_SEED 42u
#define PRIME 4294967311ull
#define EMPTY 0xFFFFFFFFu

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "little-endian only (MurmurHash3 blocks as mmh3 reads them); the numpy path is used"
#endif

#if defined(__GNUC__) && __GNUC__ >= 11 && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__)
/* Runtime dispatch (glibc ifunc): AVX-512 / AVX2 clones of the hot loops where the CPU has them
 * (measured on AMD EPYC: 128 universal permutations 3.0 us a 200-word document with AVX-512,
 * 9 us with SSE2). */
#define HOT __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define HOT
#endif

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t murmur3_32(const unsigned char *data, Py_ssize_t len, uint32_t seed) {
    const Py_ssize_t nblocks = len / 4;
    uint32_t h1 = seed;
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    for (Py_ssize_t i = 0; i < nblocks; i++) {
        uint32_t k1;
        memcpy(&k1, data + 4 * i, 4); /* little-endian hosts, as mmh3 on x86/ARM */
        k1 *= c1;
        k1 = rotl32(k1, 15);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl32(h1, 13);
        h1 = h1 * 5 + 0xe6546b64u;
    }
    const unsigned char *tail = data + nblocks * 4;
    uint32_t k1 = 0;
    switch (len & 3) {
    case 3:
        k1 ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2:
        k1 ^= (uint32_t)tail[1] << 8; /* fall through */
    case 1:
        k1 ^= tail[0];
        k1 *= c1;
        k1 = rotl32(k1, 15);
        k1 *= c2;
        h1 ^= k1;
    }
    h1 ^= (uint32_t)len;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    h1 ^= h1 >> 16;
    return h1;
}

#define SEP 0xFF /* ascii_map value of a separator; NUL is a character like any other */
static unsigned char ascii_map[128]; /* SEP or the output byte */

static void init_ascii_map(void) {
    for (int c = 0; c < 128; c++) ascii_map[c] = (unsigned char)c;
    for (int c = 'A'; c <= 'Z'; c++) ascii_map[c] = (unsigned char)(c - 'A' + 'a');
    const char *punct = "!\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~";
    for (const char *p = punct; *p; p++) ascii_map[(unsigned char)*p] = SEP;
    /* str.split() whitespace among ASCII: \t \n \v \f \r, \x1c-\x1f and space */
    const char ws[] = {' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f};
    for (size_t i = 0; i < sizeof ws; i++) ascii_map[(unsigned char)ws[i]] = SEP;
}

/* Normalize ASCII s[0..len) into out (capacity >= len) and record where each word starts in
 * the output; returns the normalized length, *nwords the word count. */
static Py_ssize_t normalize_ascii(const unsigned char *s, Py_ssize_t len, unsigned char *out,
                                  Py_ssize_t *starts, Py_ssize_t *nwords) {
    /* Branch-free (word boundaries are unpredictable): every byte is written, a separator as a
     * space that only advances the output after a word; a trailing space is cut at the end. */
    Py_ssize_t n = 0, w = 0;
    int prev_sep = 1;
    for (Py_ssize_t i = 0; i < len; i++) {
        const unsigned char c = ascii_map[s[i]];
        const int sep = c == SEP;
        out[n] = sep ? ' ' : c;
        starts[w] = n;
        w += (!sep) & prev_sep;
        n += !(sep & prev_sep);
        prev_sep = sep;
    }
    if (n > 0 && out[n - 1] == ' ') n--;
    *nwords = w;
    return n;
}

/* Word starts of normalized UTF-8 text (words separated by exactly one space). */
static Py_ssize_t word_starts(const unsigned char *t, Py_ssize_t n, Py_ssize_t *starts) {
    if (n == 0) return 0;
    Py_ssize_t w = 0;
    starts[w++] = 0;
    const unsigned char *p = t, *end = t + n;
    while ((p = memchr(p, ' ', (size_t)(end - p))) != NULL) {
        p++;
        starts[w++] = p - t;
    }
    return w;
}

/* Hashes of the shingles of normalized text t[0..n) into `hashes`; returns their count.
 * Word kind: `starts` holds the `units` word starts and needs one more slot. Char kind with
 * `ascii`: code points are bytes; otherwise `starts` receives the code point starts. */
static Py_ssize_t shingle_hashes(const unsigned char *t, Py_ssize_t n, int kind, int ascii,
                                 Py_ssize_t size, Py_ssize_t *starts, Py_ssize_t units,
                                 uint32_t *hashes) {
    if (n == 0) return 0;
    if (kind == 0) {
        starts[units] = n + 1; /* so that word i ends at starts[i + 1] - 1 */
    } else if (ascii) {
        units = n;
    } else {
        units = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if ((t[i] & 0xC0) != 0x80) starts[units++] = i;
        starts[units] = n;
    }
    if (units < size) {
        hashes[0] = murmur3_32(t, n, SHINGLE_SEED);
        return 1;
    }
    const Py_ssize_t m = units - size + 1;
    if (kind == 0) {
        for (Py_ssize_t i = 0; i < m; i++)
            hashes[i] = murmur3_32(t + starts[i], starts[i + size] - 1 - starts[i], SHINGLE_SEED);
    } else if (ascii) {
        for (Py_ssize_t i = 0; i < m; i++) hashes[i] = murmur3_32(t + i, size, SHINGLE_SEED);
    } else {
        for (Py_ssize_t i = 0; i < m; i++)
            hashes[i] = murmur3_32(t + starts[i], starts[i + size] - starts[i], SHINGLE_SEED);
    }
    return m;
}

/* Drop repeated hashes in place (order kept); `table` has `cap` (power of 2) slots. */
static Py_ssize_t dedup(uint32_t *h, Py_ssize_t m, uint64_t *table, Py_ssize_t cap) {
    if (m < 2) return m;
    memset(table, 0xFF, (size_t)cap * sizeof(uint64_t)); /* empty slot: all ones (> any hash) */
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        uint32_t x = h[i];
        size_t slot = (size_t)((x * 0x9E3779B1u) & (uint32_t)(cap - 1));
        for (;;) {
            if (table[slot] == UINT64_MAX) {
                table[slot] = x;
                h[k++] = x;
                break;
            }
            if (table[slot] == x) break;
            slot = (slot + 1) & (size_t)(cap - 1);
        }
    }
    return k;
}

HOT static void minhash_xor(const uint32_t *h, Py_ssize_t m, const uint32_t *mask, Py_ssize_t np,
                            uint32_t *sig) {
    for (Py_ssize_t j = 0; j < np; j++) sig[j] = EMPTY;
    for (Py_ssize_t i = 0; i < m; i++) {
        const uint32_t x = h[i];
        for (Py_ssize_t j = 0; j < np; j++) {
            uint32_t v = x ^ mask[j];
            sig[j] = v < sig[j] ? v : sig[j];
        }
    }
}

/* (a*x + b) mod p with p = 2^32 + 15, from 2^32 = -15 (mod p): v = hi*2^32 + lo = lo - 15*hi.
 * hi < 2^31 + 2, so u = lo + 8p - 15*hi is positive and below 2^36; once more, u's high part is
 * below 16 and w = lo' - 15*hi' lies in (-p, 2^32), and one conditional +p lands in [0, p). */
static inline int64_t mod_p(uint64_t a, uint64_t x, uint64_t b) {
    uint64_t v = (uint64_t)(uint32_t)a * x + b;
    uint64_t u = (v & 0xFFFFFFFFu) + 8 * PRIME - 15 * (v >> 32);
    int64_t t = (int64_t)(u & 0xFFFFFFFFu) - 15 * (int64_t)(u >> 32);
    return t + ((int64_t)PRIME & (t >> 63));
}

#define BLOCK 32 /* permutations whose running minima stay in registers over all hashes */

HOT static void minhash_universal(const uint32_t *h, Py_ssize_t m, const uint64_t *a,
                                  const uint64_t *b, Py_ssize_t np, int64_t *acc,
                                  uint32_t *sig) {
    Py_ssize_t j0 = 0;
    for (; j0 + BLOCK <= np; j0 += BLOCK) {
        int64_t best[BLOCK];
        for (int t = 0; t < BLOCK; t++) best[t] = (int64_t)EMPTY;
        const uint64_t *aj = a + j0, *bj = b + j0;
        for (Py_ssize_t i = 0; i < m; i++) {
            const uint64_t x = h[i];
            for (int t = 0; t < BLOCK; t++) {
                int64_t r = mod_p(aj[t], x, bj[t]);
                best[t] = r < best[t] ? r : best[t];
            }
        }
        for (int t = 0; t < BLOCK; t++) sig[j0 + t] = (uint32_t)best[t];
    }
    if (j0 < np) { /* the last np % BLOCK permutations */
        for (Py_ssize_t j = j0; j < np; j++) acc[j] = (int64_t)EMPTY;
        for (Py_ssize_t i = 0; i < m; i++) {
            const uint64_t x = h[i];
            for (Py_ssize_t j = j0; j < np; j++) {
                int64_t r = mod_p(a[j], x, b[j]);
                acc[j] = r < acc[j] ? r : acc[j];
            }
        }
        for (Py_ssize_t j = j0; j < np; j++) sig[j] = (uint32_t)acc[j];
    }
}

typedef struct {
    const unsigned char *data;
    Py_ssize_t len;
    int ascii_raw; /* 1: raw ASCII text still to normalize here */
} Text;

/* Pass 1 of the text kernels, with the GIL: pointers to the UTF-8/ASCII data of every text of
 * the list; non-ASCII texts are normalized by the Python `normalize` and kept alive in `keep`.
 * Returns the items (PyMem_Free them) and the longest length, or NULL with an exception. */
static Text *collect_texts(PyObject *texts, PyObject *normalize, PyObject *keep,
                           Py_ssize_t *maxlen) {
    const Py_ssize_t ndocs = PyList_GET_SIZE(texts);
    Text *items = PyMem_Malloc(sizeof(Text) * (size_t)(ndocs > 0 ? ndocs : 1));
    if (!items) {
        PyErr_NoMemory();
        return NULL;
    }
    *maxlen = 0;
    for (Py_ssize_t d = 0; d < ndocs; d++) {
        PyObject *s = PyList_GET_ITEM(texts, d);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "text %zd is %.100s, not str", d, Py_TYPE(s)->tp_name);
            goto fail;
        }
        if (PyUnicode_IS_ASCII(s)) {
            items[d].data = PyUnicode_1BYTE_DATA(s);
            items[d].len = PyUnicode_GET_LENGTH(s);
            items[d].ascii_raw = 1;
        } else {
            PyObject *norm = PyObject_CallOneArg(normalize, s);
            if (!norm) goto fail;
            if (!PyUnicode_Check(norm) || PyList_Append(keep, norm) < 0) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "normalize gave no str");
                Py_DECREF(norm);
                goto fail;
            }
            Py_DECREF(norm);
            Py_ssize_t n;
            const char *u = PyUnicode_AsUTF8AndSize(norm, &n);
            if (!u) goto fail;
            items[d].data = (const unsigned char *)u;
            items[d].len = n;
            items[d].ascii_raw = 0;
        }
        if (items[d].len > *maxlen) *maxlen = items[d].len;
    }
    return items;
fail:
    PyMem_Free(items);
    return NULL;
}

/* The distinct shingle hashes of one text into `hashes` (first-seen order); returns their
 * count. `norm`, `pos` and `table` are scratch space sized for the longest text. */
static Py_ssize_t text_hashes(const Text *item, int kind, Py_ssize_t size, unsigned char *norm,
                              Py_ssize_t *pos, uint32_t *hashes, uint64_t *table) {
    const unsigned char *t = item->data;
    Py_ssize_t n = item->len, units = 0;
    const int ascii = item->ascii_raw;
    if (ascii) {
        n = normalize_ascii(t, n, norm, pos, &units);
        t = norm;
    } else if (kind == 0) {
        units = word_starts(t, n, pos);
    }
    Py_ssize_t m = shingle_hashes(t, n, kind, ascii, size, pos, units, hashes);
    if (m > 1) {
        Py_ssize_t c = 16;
        while (c < 2 * m) c <<= 1;
        m = dedup(hashes, m, table, c);
    }
    return m;
}

static int get_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize, Py_ssize_t count,
                      int writable, const char *name) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (view->itemsize != itemsize || view->len != itemsize * count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items of %zd bytes, got %zd bytes",
                     name, count, itemsize, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Sorts a text's m shingle hashes in place; `scratch` holds m values. Insertion sort for a
 * short run, else four byte-wide counting passes: qsort's call per comparison was most of
 * shingle_hashes' time. */
static void sort_u32(uint32_t *h, Py_ssize_t m, uint32_t *scratch) {
    if (m <= 48) {
        for (Py_ssize_t i = 1; i < m; i++) {
            const uint32_t v = h[i];
            Py_ssize_t j = i;
            while (j > 0 && h[j - 1] > v) {
                h[j] = h[j - 1];
                j--;
            }
            h[j] = v;
        }
        return;
    }
    uint32_t *src = h, *dst = scratch;
    for (int shift = 0; shift < 32; shift += 8) {
        Py_ssize_t count[257] = {0};
        for (Py_ssize_t i = 0; i < m; i++) count[((src[i] >> shift) & 0xFF) + 1]++;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (Py_ssize_t i = 0; i < m; i++) dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    /* four passes: the sorted values are back in h */
}

PyDoc_STRVAR(signatures_doc,
             "signatures(texts, normalize, kind, size, family, p1, p2, out)\n\n"
             "texts: list of str; normalize: the Python normalize() for non-ASCII texts;\n"
             "kind 0 word / 1 char; family 0 xor (p1 = uint32 masks, p2 None) or 1 universal\n"
             "(p1 = uint64 a, p2 = uint64 b); out: writable uint32 buffer of len(texts) rows.");

/* The one pass over texts behind signatures(), shingle_hashes() and signed_hashes(): each text
 * normalized and shingled once; its signature into `out` (unless out is NULL) and its sorted
 * distinct shingle hashes returned as a bytearray with their offsets (unless poff is NULL;
 * else None). */
static PyObject *text_pass(PyObject *texts, PyObject *normalize, int kind, Py_ssize_t size,
                           int family, PyObject *p1, PyObject *p2, PyObject *out,
                           PyObject *poff) {
    const int sign = out != NULL, hash = poff != NULL;
    if ((kind != 0 && kind != 1) || (family != 0 && family != 1) || size < 1) {
        PyErr_SetString(PyExc_ValueError, "bad kind, family or size");
        return NULL;
    }
    const Py_ssize_t ndocs = PyList_GET_SIZE(texts);
    Py_buffer vp1 = {0}, vp2 = {0}, vout = {0}, voff = {0};
    Py_ssize_t np = 0;
    PyObject *keep = NULL, *result = NULL;
    Text *items = NULL;
    if (sign) {
        if (PyObject_GetBuffer(p1, &vp1, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        np = vp1.len / (family == 0 ? 4 : 8);
        PyBuffer_Release(&vp1);
        if (np < 1) {
            PyErr_SetString(PyExc_ValueError, "no permutation parameters");
            return NULL;
        }
        if (get_buffer(p1, &vp1, family == 0 ? 4 : 8, np, 0, "p1") < 0) return NULL;
        if (family == 1 && get_buffer(p2, &vp2, 8, np, 0, "p2") < 0) goto done;
        if (get_buffer(out, &vout, 4, ndocs * np, 1, "out") < 0) goto done;
    }
    if (hash && get_buffer(poff, &voff, 8, ndocs + 1, 1, "offsets") < 0) goto done;
    /* Pass 1, with the GIL: pointers to UTF-8/ASCII data; Python normalizes non-ASCII texts.
     * `keep` holds those normalized strings alive until the end. */
    keep = PyList_New(0);
    Py_ssize_t maxlen = 0, total = 0;
    items = keep ? collect_texts(texts, normalize, keep, &maxlen) : NULL;
    if (!items) goto done;
    for (Py_ssize_t d = 0; d < ndocs; d++) total += items[d].len + 1;
    Py_ssize_t cap = 16;
    while (cap < 2 * (maxlen + 1)) cap <<= 1;
    unsigned char *norm = PyMem_RawMalloc((size_t)maxlen + 1);
    Py_ssize_t *pos = PyMem_RawMalloc(sizeof(Py_ssize_t) * (size_t)(maxlen + 2));
    uint64_t *table = PyMem_RawMalloc(sizeof(uint64_t) * (size_t)cap);
    int64_t *acc = PyMem_RawMalloc(sizeof(int64_t) * (size_t)(np > 0 ? np : 1));
    /* A text of n bytes has at most n + 1 shingles (one when shorter than a shingle); without
     * hashes to keep, one text's at a time. */
    const Py_ssize_t room = hash ? total : maxlen + 1;
    uint32_t *values = PyMem_RawMalloc(sizeof(uint32_t) * (size_t)(room > 0 ? room : 1));
    if (!norm || !pos || !table || !acc || !values) {
        PyMem_RawFree(norm);
        PyMem_RawFree(pos);
        PyMem_RawFree(table);
        PyMem_RawFree(acc);
        PyMem_RawFree(values);
        PyErr_NoMemory();
        goto done;
    }
    uint32_t *sigs = (uint32_t *)vout.buf;
    int64_t *offsets = (int64_t *)voff.buf;
    Py_ssize_t at = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t d = 0; d < ndocs; d++) {
        uint32_t *h = values + at;
        const Py_ssize_t m = text_hashes(&items[d], kind, size, norm, pos, h, table);
        if (sign) {
            uint32_t *sig = sigs + d * np;
            if (m == 0)
                for (Py_ssize_t j = 0; j < np; j++) sig[j] = EMPTY;
            else if (family == 0)
                minhash_xor(h, m, (const uint32_t *)vp1.buf, np, sig);
            else
                minhash_universal(h, m, (const uint64_t *)vp1.buf, (const uint64_t *)vp2.buf,
                                  np, acc, sig);
        }
        if (hash) {
            offsets[d] = at;
            if (m > 1) sort_u32(h, m, (uint32_t *)table);
            at += m;
        }
    }
    if (hash) offsets[ndocs] = at;
    Py_END_ALLOW_THREADS
    result = hash ? PyByteArray_FromStringAndSize((const char *)values,
                                                  (Py_ssize_t)sizeof(uint32_t) * at)
                  : Py_NewRef(Py_None);
    PyMem_RawFree(norm);
    PyMem_RawFree(pos);
    PyMem_RawFree(table);
    PyMem_RawFree(acc);
    PyMem_RawFree(values);
done:
    PyMem_Free(items);
    Py_XDECREF(keep);
    if (vp1.obj) PyBuffer_Release(&vp1);
    if (vp2.obj) PyBuffer_Release(&vp2);
    if (vout.obj) PyBuffer_Release(&vout);
    if (voff.obj) PyBuffer_Release(&voff);
    return result;
}

static PyObject *k_signatures(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *texts, *normalize, *p1, *p2, *out;
    int kind, family;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "O!OiniOOO", &PyList_Type, &texts, &normalize, &kind, &size,
                          &family, &p1, &p2, &out))
        return NULL;
    return text_pass(texts, normalize, kind, size, family, p1, p2, out, NULL);
}

PyDoc_STRVAR(shingle_hashes_doc,
             "shingle_hashes(texts, normalize, kind, size, offsets) -> bytearray\n\n"
             "Each text's distinct shingle hashes, sorted, one after the other as uint32; text d's\n"
             "are items offsets[d]:offsets[d + 1] (offsets: writable int64 buffer of len(texts) + 1).\n"
             "kind and size as for signatures(). Made once per text, so that the Jaccard of many\n"
             "pairs (jaccard_hashed) costs one merge of two sorted arrays a pair.");

static PyObject *k_shingle_hashes(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *texts, *normalize, *poff;
    int kind;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "O!OinO", &PyList_Type, &texts, &normalize, &kind, &size, &poff))
        return NULL;
    return text_pass(texts, normalize, kind, size, 0, NULL, NULL, NULL, poff);
}

PyDoc_STRVAR(signed_hashes_doc,
             "signed_hashes(texts, normalize, kind, size, family, p1, p2, out, offsets)\n"
             "-> bytearray\n\n"
             "signatures() into out and shingle_hashes() returned, in one pass: each text is\n"
             "normalized and shingled once for both (a report needs both of every text).");

static PyObject *k_signed_hashes(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *texts, *normalize, *p1, *p2, *out, *poff;
    int kind, family;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "O!OiniOOOO", &PyList_Type, &texts, &normalize, &kind, &size,
                          &family, &p1, &p2, &out, &poff))
        return NULL;
    return text_pass(texts, normalize, kind, size, family, p1, p2, out, poff);
}

/* Pairs ahead whose second run is fetched into the cache while this one is merged. */
#define PREFETCH_PAIRS 8

PyDoc_STRVAR(jaccard_hashed_doc,
             "jaccard_hashed(values, offsets, a, b, out, floor=0.0)\n\n"
             "The Jaccard similarity of the sorted hash runs a[i] and b[i] of shingle_hashes()\n"
             "into out[i] (float64), -1 where either run is empty. values: uint32 buffer;\n"
             "offsets: int64 buffer of runs + 1 items; a, b: int64 buffers of run numbers.\n"
             "floor > 0: a pair that cannot reach it stops early, with some value below it.");

static PyObject *k_jaccard_hashed(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *pv, *poff, *pa, *pb, *out;
    double floor = 0.0;
    if (!PyArg_ParseTuple(args, "OOOOO|d", &pv, &poff, &pa, &pb, &out, &floor)) return NULL;
    Py_buffer vv, voff, va, vb, vout;
    if (PyObject_GetBuffer(pv, &vv, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    const Py_ssize_t nvalues = vv.len / 4;
    PyBuffer_Release(&vv);
    if (get_buffer(pv, &vv, 4, nvalues, 0, "values") < 0) return NULL;
    if (PyObject_GetBuffer(poff, &voff, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&vv);
        return NULL;
    }
    const Py_ssize_t nruns = voff.len / 8 - 1;
    PyBuffer_Release(&voff);
    if (nruns < 0 || get_buffer(poff, &voff, 8, nruns + 1, 0, "offsets") < 0) {
        if (nruns < 0) PyErr_SetString(PyExc_ValueError, "offsets: empty");
        PyBuffer_Release(&vv);
        return NULL;
    }
    if (PyObject_GetBuffer(pa, &va, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&vv);
        PyBuffer_Release(&voff);
        return NULL;
    }
    const Py_ssize_t npairs = va.len / 8;
    PyBuffer_Release(&va);
    PyObject *result = NULL;
    int got_a = 0, got_b = 0, got_out = 0;
    if (get_buffer(pa, &va, 8, npairs, 0, "a") < 0) goto done;
    got_a = 1;
    if (get_buffer(pb, &vb, 8, npairs, 0, "b") < 0) goto done;
    got_b = 1;
    if (get_buffer(out, &vout, 8, npairs, 1, "out") < 0) goto done;
    got_out = 1;
    const uint32_t *values = vv.buf;
    const int64_t *offsets = voff.buf, *ia = va.buf, *ib = vb.buf;
    for (Py_ssize_t r = 0; r < nruns; r++) {
        if (offsets[r] < 0 || offsets[r] > offsets[r + 1] || offsets[r + 1] > nvalues) {
            PyErr_Format(PyExc_ValueError, "offsets: run %zd out of order or range", r);
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < npairs; i++) {
        if (ia[i] < 0 || ia[i] >= nruns || ib[i] < 0 || ib[i] >= nruns) {
            PyErr_Format(PyExc_IndexError, "pair %zd: index out of range of %zd texts", i, nruns);
            goto done;
        }
    }
    double *res = vout.buf;
    const double share = floor > 0.0 ? floor / (1.0 + floor) : 0.0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < npairs; i++) {
        /* The second runs are in random order: fetched ahead, a pair's merge does not wait
         * for memory (3.9M pairs of short records: 2.6 -> 1.75 s on one core). */
        if (i + PREFETCH_PAIRS < npairs) {
            const uint32_t *ahead = values + offsets[ib[i + PREFETCH_PAIRS]];
            for (int line = 0; line < 4; line++) __builtin_prefetch(ahead + 16 * line);
        }
        if (i + 2 * PREFETCH_PAIRS < npairs) __builtin_prefetch(offsets + ib[i + 2 * PREFETCH_PAIRS]);
        const uint32_t *x = values + offsets[ia[i]], *xe = values + offsets[ia[i] + 1];
        const uint32_t *y = values + offsets[ib[i]], *ye = values + offsets[ib[i] + 1];
        const Py_ssize_t lx = xe - x, ly = ye - y;
        if (lx == 0 || ly == 0) {
            res[i] = -1.0;
            continue;
        }
        /* J >= floor needs inter >= floor / (1 + floor) * (lx + ly); every 16 steps, a merge
         * that can no longer get there stops with that bound (most candidates are strangers:
         * 1.75 -> 1.15 s). */
        const double need = share * (double)(lx + ly);
        Py_ssize_t inter = 0;
        for (;;) {
            for (int step = 0; step < 16 && x < xe && y < ye; step++) {
                const uint32_t u = *x, v = *y;
                inter += u == v;
                x += u <= v;
                y += v <= u;
            }
            if (x >= xe || y >= ye) break;
            const Py_ssize_t rx = xe - x, ry = ye - y, most = inter + (rx < ry ? rx : ry);
            if ((double)most + 1e-6 < need) { /* a margin for the rounding of need */
                inter = most;
                break;
            }
        }
        res[i] = (double)inter / (double)(lx + ly - inter);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&vv);
    PyBuffer_Release(&voff);
    if (got_a) PyBuffer_Release(&va);
    if (got_b) PyBuffer_Release(&vb);
    if (got_out) PyBuffer_Release(&vout);
    return result;
}

/* MurmurHash3 x64 128, first 64-bit half (mmh3.hash64(data, seed, signed=False)[0]). */
static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static uint64_t murmur3_x64_128_h1(const unsigned char *data, Py_ssize_t len, uint32_t seed) {
    const Py_ssize_t nblocks = len / 16;
    uint64_t h1 = seed, h2 = seed;
    const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
    for (Py_ssize_t i = 0; i < nblocks; i++) {
        uint64_t k1, k2;
        memcpy(&k1, data + 16 * i, 8);
        memcpy(&k2, data + 16 * i + 8, 8);
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    const unsigned char *tail = data + nblocks * 16;
    uint64_t k1 = 0, k2 = 0;
    switch (len & 15) {
    case 15: k2 ^= (uint64_t)tail[14] << 48; /* fall through */
    case 14: k2 ^= (uint64_t)tail[13] << 40; /* fall through */
    case 13: k2 ^= (uint64_t)tail[12] << 32; /* fall through */
    case 12: k2 ^= (uint64_t)tail[11] << 24; /* fall through */
    case 11: k2 ^= (uint64_t)tail[10] << 16; /* fall through */
    case 10: k2 ^= (uint64_t)tail[9] << 8; /* fall through */
    case 9:
        k2 ^= (uint64_t)tail[8];
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        /* fall through */
    case 8: k1 ^= (uint64_t)tail[7] << 56; /* fall through */
    case 7: k1 ^= (uint64_t)tail[6] << 48; /* fall through */
    case 6: k1 ^= (uint64_t)tail[5] << 40; /* fall through */
    case 5: k1 ^= (uint64_t)tail[4] << 32; /* fall through */
    case 4: k1 ^= (uint64_t)tail[3] << 24; /* fall through */
    case 3: k1 ^= (uint64_t)tail[2] << 16; /* fall through */
    case 2: k1 ^= (uint64_t)tail[1] << 8; /* fall through */
    case 1:
        k1 ^= (uint64_t)tail[0];
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
    }
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    return h1;
}

PyDoc_STRVAR(band_keys_doc,
             "band_keys(sigs, docs, bands, rows, seed) -> list of lists of str\n\n"
             "sigs: C-contiguous little-endian uint32 buffer of docs x (bands * rows) values;\n"
             "key i of a document is 'b%02d_%016x' % (i, murmur3_x64_128_h1(band i bytes)).");

static PyObject *k_band_keys(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *sigs;
    Py_ssize_t docs, bands, rows;
    unsigned int seed;
    if (!PyArg_ParseTuple(args, "OnnnI", &sigs, &docs, &bands, &rows, &seed)) return NULL;
    if (docs < 0 || bands < 1 || rows < 1) {
        PyErr_SetString(PyExc_ValueError, "bad docs, bands or rows");
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(sigs, &view, 4, docs * bands * rows, 0, "sigs") < 0) return NULL;
    const unsigned char *base = view.buf;
    const Py_ssize_t width = rows * 4;
    static const char hex[] = "0123456789abcdef";
    PyObject *out = PyList_New(docs);
    if (!out) goto fail;
    for (Py_ssize_t d = 0; d < docs; d++) {
        PyObject *keys = PyList_New(bands);
        if (!keys) goto fail;
        PyList_SET_ITEM(out, d, keys);
        for (Py_ssize_t i = 0; i < bands; i++) {
            uint64_t h = murmur3_x64_128_h1(base + (d * bands + i) * width, width, seed);
            char key[48];
            int n = snprintf(key, 24, "b%02zd_", i);
            for (int k = 15; k >= 0; k--) {
                key[n + k] = hex[h & 15];
                h >>= 4;
            }
            PyObject *str = PyUnicode_FromStringAndSize(key, n + 16);
            if (!str) goto fail;
            PyList_SET_ITEM(keys, i, str);
        }
    }
    PyBuffer_Release(&view);
    return out;
fail:
    Py_XDECREF(out);
    PyBuffer_Release(&view);
    return NULL;
}

PyDoc_STRVAR(band_hashes_doc,
             "band_hashes(sigs, docs, bands, rows, seed, out)\n\n"
             "The 64-bit hashes that band_keys writes as hex: out[d * bands + i] =\n"
             "murmur3_x64_128_h1(band i bytes of document d); out: writable uint64 buffer.");

static PyObject *k_band_hashes(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *sigs, *out;
    Py_ssize_t docs, bands, rows;
    unsigned int seed;
    if (!PyArg_ParseTuple(args, "OnnnIO", &sigs, &docs, &bands, &rows, &seed, &out)) return NULL;
    if (docs < 0 || bands < 1 || rows < 1) {
        PyErr_SetString(PyExc_ValueError, "bad docs, bands or rows");
        return NULL;
    }
    Py_buffer view, dest;
    if (get_buffer(sigs, &view, 4, docs * bands * rows, 0, "sigs") < 0) return NULL;
    if (get_buffer(out, &dest, 8, docs * bands, 1, "out") < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *base = view.buf;
    uint64_t *hashes = dest.buf;
    const Py_ssize_t width = rows * 4;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < docs * bands; k++)
        hashes[k] = murmur3_x64_128_h1(base + k * width, width, seed);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&dest);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(normalize_doc, "normalize(text) -> str, or None when text is not ASCII.");

static PyObject *k_normalize(PyObject *Py_UNUSED(self), PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "normalize() needs str, not %.100s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (!PyUnicode_IS_ASCII(text)) Py_RETURN_NONE;
    const Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    unsigned char small[1024];
    Py_ssize_t small_starts[1024];
    unsigned char *buf = small;
    Py_ssize_t *starts = small_starts;
    if (len > 1024) {
        buf = PyMem_Malloc((size_t)len);
        starts = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)len);
        if (!buf || !starts) {
            PyMem_Free(buf);
            PyMem_Free(starts);
            return PyErr_NoMemory();
        }
    }
    Py_ssize_t words;
    const Py_ssize_t n = normalize_ascii(PyUnicode_1BYTE_DATA(text), len, buf, starts, &words);
    PyObject *out = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, buf, n);
    if (buf != small) {
        PyMem_Free(buf);
        PyMem_Free(starts);
    }
    return out;
}

/* A set of short ASCII words as a bytes table that any_word probes without making a Python
   string for each word of a text: 4 bytes of slot mask, then slots of WORD_SLOT bytes (length,
   then the word; length 0 is an empty slot), open addressing by FNV-1a. */
#define WORD_SLOT 16

static uint32_t fnv1a(const unsigned char *s, Py_ssize_t n) {
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
    return h;
}

PyDoc_STRVAR(word_table_doc,
             "word_table(words) -> bytes: the table any_word looks words up in; words: a "
             "sequence of non-empty ASCII str of at most 15 characters without whitespace.");

static PyObject *k_word_table(PyObject *Py_UNUSED(self), PyObject *words) {
    PyObject *seq = PySequence_Fast(words, "word_table() needs a sequence of str");
    if (!seq) return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint32_t slots = 8;
    while (slots < 4 * (uint64_t)n) slots <<= 1;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 4 + (Py_ssize_t)slots * WORD_SLOT);
    if (!out) {
        Py_DECREF(seq);
        return NULL;
    }
    unsigned char *table = (unsigned char *)PyBytes_AS_STRING(out);
    memset(table, 0, 4 + (size_t)slots * WORD_SLOT);
    const uint32_t mask = slots - 1;
    memcpy(table, &mask, 4);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(w) || !PyUnicode_IS_ASCII(w) || PyUnicode_GET_LENGTH(w) < 1 ||
            PyUnicode_GET_LENGTH(w) >= WORD_SLOT) {
            PyErr_SetString(PyExc_ValueError, "words must be ASCII str of 1 to 15 characters");
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        const unsigned char *s = PyUnicode_1BYTE_DATA(w);
        const Py_ssize_t len = PyUnicode_GET_LENGTH(w);
        for (Py_ssize_t k = 0; k < len; k++)
            if (s[k] <= ' ' || (s[k] >= 28 && s[k] <= 31)) {
                PyErr_SetString(PyExc_ValueError, "words must not hold whitespace");
                Py_DECREF(seq);
                Py_DECREF(out);
                return NULL;
            }
        uint32_t at = fnv1a(s, len) & mask;
        for (;;) {
            unsigned char *slot = table + 4 + (size_t)at * WORD_SLOT;
            if (slot[0] == 0) {
                slot[0] = (unsigned char)len;
                memcpy(slot + 1, s, (size_t)len);
                break;
            }
            if (slot[0] == len && memcmp(slot + 1, s, (size_t)len) == 0) break; /* repeated */
            at = (at + 1) & mask;
        }
    }
    Py_DECREF(seq);
    return out;
}

/* Whitespace as str.split() sees it in ASCII text. */
static inline int is_split_space(unsigned char c) {
    return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
}

/* The slot mask of a word_table, or -1 with an error when the buffer is not one. */
static int table_mask(const Py_buffer *view, uint32_t *mask) {
    if (view->len >= 4 + WORD_SLOT) {
        memcpy(mask, view->buf, 4);
        if ((Py_ssize_t)(4 + ((size_t)*mask + 1) * WORD_SLOT) == view->len) return 0;
    }
    PyErr_SetString(PyExc_ValueError, "not a word_table");
    return -1;
}

/* Whether the word w[0..len) is in the table. */
static int in_table(const unsigned char *table, uint32_t mask, const unsigned char *w,
                    Py_ssize_t len) {
    if (len == 0 || len >= WORD_SLOT) return 0;
    uint32_t at = fnv1a(w, len) & mask;
    for (uint32_t probes = 0; probes <= mask; probes++) { /* a full table ends too */
        const unsigned char *slot = table + 4 + (size_t)at * WORD_SLOT;
        if (slot[0] == 0) return 0;
        if (slot[0] == len && memcmp(slot + 1, w, (size_t)len) == 0) return 1;
        at = (at + 1) & mask;
    }
    return 0;
}

PyDoc_STRVAR(any_word_doc,
             "any_word(text, table) -> bool, or None when text is not ASCII: whether a word of "
             "text.split() is in the word_table; no word becomes a Python string.");

static PyObject *k_any_word(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *text;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "Uy*", &text, &view)) return NULL;
    if (!PyUnicode_IS_ASCII(text)) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    uint32_t mask;
    if (table_mask(&view, &mask) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *table = view.buf;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int found = 0;
    Py_ssize_t i = 0;
    while (i < n && !found) {
        while (i < n && is_split_space(s[i])) i++;
        const Py_ssize_t start = i;
        while (i < n && !is_split_space(s[i])) i++;
        const Py_ssize_t len = i - start;
        found = in_table(table, mask, s + start, len);
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}


/* A writable C-contiguous buffer of int64 (numpy's "l" or "q"), else an error naming `name`. */
static int get_i64(PyObject *arg, Py_buffer *view, const char *name) {
    if (PyObject_GetBuffer(arg, view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        return -1;
    const char *fmt = view->format != NULL ? view->format : "B";
    const char last = fmt[strlen(fmt) - 1];
    if (view->itemsize != 8 || (last != 'q' && last != 'l')) {
        PyErr_Format(PyExc_ValueError, "%s: expected a buffer of int64", name);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(sort_i64_doc,
             "sort_i64(a) -> None\n\n"
             "Sorts a writable int64 buffer in place, ascending: byte-wide counting passes, one\n"
             "skipped where every value has the same byte (candidate keys use 40 of 64 bits).\n"
             "Needs a scratch copy of the array.");

static PyObject *k_sort_i64(PyObject *Py_UNUSED(self), PyObject *arg) {
    Py_buffer view;
    if (get_i64(arg, &view, "sort_i64") < 0) return NULL;
    const Py_ssize_t n = view.len / 8;
    uint64_t *a = view.buf, *scratch = n > 1 ? malloc((size_t)n * 8) : NULL;
    int failed = 0;
    if (n > 1 && scratch == NULL) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    if (n > 1) {
        /* Signed order: the sign bit flipped, the values sort as unsigned. */
        const uint64_t flip = 1ull << 63;
        Py_ssize_t(*count)[256] = calloc(8, sizeof *count);
        if (count != NULL) {
            for (Py_ssize_t i = 0; i < n; i++) {
                const uint64_t v = a[i] ^ flip;
                for (int d = 0; d < 8; d++) count[d][(v >> (8 * d)) & 0xFF]++;
            }
            uint64_t *src = a, *dst = scratch;
            for (int d = 0; d < 8; d++) {
                const int shift = 8 * d;
                if (count[d][((src[0] ^ flip) >> shift) & 0xFF] == n) continue; /* one byte */
                Py_ssize_t at[256], sum = 0;
                for (int b = 0; b < 256; b++) {
                    at[b] = sum;
                    sum += count[d][b];
                }
                for (Py_ssize_t i = 0; i < n; i++) dst[at[((src[i] ^ flip) >> shift) & 0xFF]++] = src[i];
                uint64_t *t = src;
                src = dst;
                dst = t;
            }
            if (src != a) memcpy(a, src, (size_t)n * 8);
            free(count);
        } else {
            failed = 1;
        }
    }
    Py_END_ALLOW_THREADS
    free(scratch);
    PyBuffer_Release(&view);
    if (failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(fold_counted_doc,
             "fold_counted(a, bits) -> int\n\n"
             "a: a sorted writable int64 buffer of keys `key << bits | count`. Each run of one key\n"
             "becomes one item, its counts summed (at most 2**bits - 1), at the front of a in\n"
             "order; returns how many there are.");

static PyObject *k_fold_counted(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *arg;
    int bits;
    if (!PyArg_ParseTuple(args, "Oi", &arg, &bits)) return NULL;
    if (bits < 1 || bits > 16) {
        PyErr_SetString(PyExc_ValueError, "fold_counted: bits must be 1..16");
        return NULL;
    }
    Py_buffer view;
    if (get_i64(arg, &view, "fold_counted") < 0) return NULL;
    const Py_ssize_t n = view.len / 8;
    int64_t *a = view.buf;
    const int64_t most = ((int64_t)1 << bits) - 1;
    Py_ssize_t out = 0;
    for (Py_ssize_t i = 0; i < n;) {
        const int64_t key = a[i] >> bits;
        int64_t sum = 0;
        for (; i < n && (a[i] >> bits) == key; i++) sum += a[i] & most;
        a[out++] = (key << bits) | (sum < most ? sum : most);
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(out);
}

PyDoc_STRVAR(band_json_doc,
             "band_json(values, docs, names) -> list of str\n\n"
             "values: int64 buffer of docs rows of len(names) band values. For each row, its\n"
             "JSON members '\"name\":value,...' (names are plain ASCII field names): 40 longs\n"
             "a record made decimal by json.dumps were a fifth of indexing's Python time.");

/* Band fields a record at most: neardup.sign.banding.MAX_BANDS. */
#define BAND_JSON_NAMES 1024

static PyObject *k_band_json(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *pv, *names;
    Py_ssize_t docs;
    if (!PyArg_ParseTuple(args, "OnO!", &pv, &docs, &PyList_Type, &names)) return NULL;
    const Py_ssize_t k = PyList_GET_SIZE(names);
    if (docs < 0 || k < 1 || k > BAND_JSON_NAMES) {
        PyErr_SetString(PyExc_ValueError, "band_json: bad docs, or not 1 to 1024 names");
        return NULL;
    }
    const char *name[BAND_JSON_NAMES];
    Py_ssize_t name_len[BAND_JSON_NAMES], room = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *n = PyList_GET_ITEM(names, j);
        if (!PyUnicode_Check(n) || !PyUnicode_IS_ASCII(n)) {
            PyErr_SetString(PyExc_ValueError, "band_json: names must be ASCII str");
            return NULL;
        }
        name[j] = (const char *)PyUnicode_DATA(n);
        name_len[j] = PyUnicode_GET_LENGTH(n);
        for (Py_ssize_t c = 0; c < name_len[j]; c++) {
            const char ch = name[j][c];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '_')) {
                PyErr_SetString(PyExc_ValueError, "band_json: a name holds a character to escape");
                return NULL;
            }
        }
        room += name_len[j] + 4 + 20; /* quotes, colon, comma; a long's 20 characters */
    }
    Py_buffer view;
    if (get_buffer(pv, &view, 8, docs * k, 0, "values") < 0) return NULL;
    PyObject *out = PyList_New(docs);
    char *buf = malloc((size_t)room + 1);
    if (out == NULL || buf == NULL) {
        Py_XDECREF(out);
        free(buf);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    const int64_t *values = view.buf;
    for (Py_ssize_t d = 0; d < docs; d++) {
        char *w = buf;
        for (Py_ssize_t j = 0; j < k; j++) {
            if (j) *w++ = ',';
            *w++ = '"';
            memcpy(w, name[j], (size_t)name_len[j]);
            w += name_len[j];
            *w++ = '"';
            *w++ = ':';
            const int64_t v = values[d * k + j];
            uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            char digits[20];
            int nd = 0;
            do {
                digits[nd++] = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            if (v < 0) *w++ = '-';
            while (nd) *w++ = digits[--nd];
        }
        PyObject *str = PyUnicode_FromStringAndSize(buf, w - buf);
        if (str == NULL) {
            Py_DECREF(out);
            free(buf);
            PyBuffer_Release(&view);
            return NULL;
        }
        PyList_SET_ITEM(out, d, str);
    }
    free(buf);
    PyBuffer_Release(&view);
    return out;
}

PyDoc_STRVAR(prepare_plain_doc,
             "prepare_plain(texts, table, split_hyphens) -> list of str or None\n\n"
             "Each text normalized, where that is all its preparation: ASCII, without '&', and\n"
             "(table: a word_table, or None for no such test) without a word of the table; with\n"
             "split_hyphens, its hyphens as spaces between words. None where it needs Python's\n"
             "prepare(). One call a batch: two kernel calls and five Python ones a text cost\n"
             "3 us each time 100k texts were signed.");

static PyObject *k_prepare_plain(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *texts, *ptable;
    int split_hyphens;
    if (!PyArg_ParseTuple(args, "O!Op", &PyList_Type, &texts, &ptable, &split_hyphens))
        return NULL;
    Py_buffer view = {0};
    uint32_t mask = 0;
    const int check = ptable != Py_None;
    if (check) {
        if (PyObject_GetBuffer(ptable, &view, PyBUF_SIMPLE) < 0) return NULL;
        if (table_mask(&view, &mask) < 0) {
            PyBuffer_Release(&view);
            return NULL;
        }
    }
    const unsigned char *table = view.buf;
    /* Which (length, first byte) and (length, last byte) the table's words have: most words of
     * a text are ruled out by two loads, not hashed and probed (0.46 -> 0.2 s for 100k
     * documents of 200 words). */
    unsigned char first_ok[WORD_SLOT][256], last_ok[WORD_SLOT][256];
    memset(first_ok, 0, sizeof first_ok);
    memset(last_ok, 0, sizeof last_ok);
    for (uint32_t k = 0; check && k <= mask; k++) {
        const unsigned char *slot = table + 4 + (size_t)k * WORD_SLOT;
        if (slot[0] > 0 && slot[0] < WORD_SLOT) {
            first_ok[slot[0]][slot[1]] = 1;
            last_ok[slot[0]][slot[slot[0]]] = 1;
        }
    }
    const Py_ssize_t ntexts = PyList_GET_SIZE(texts);
    PyObject *out = PyList_New(ntexts);
    unsigned char *buf = NULL;
    Py_ssize_t *starts = NULL, room = 0;
    if (out == NULL) goto fail;
    for (Py_ssize_t d = 0; d < ntexts; d++) {
        PyObject *text = PyList_GET_ITEM(texts, d);
        if (!PyUnicode_Check(text) || !PyUnicode_IS_ASCII(text)) {
            PyList_SET_ITEM(out, d, Py_NewRef(Py_None));
            continue;
        }
        const unsigned char *s = PyUnicode_1BYTE_DATA(text);
        const Py_ssize_t len = PyUnicode_GET_LENGTH(text);
        if (memchr(s, '&', (size_t)len) != NULL) {
            PyList_SET_ITEM(out, d, Py_NewRef(Py_None));
            continue;
        }
        if (len + 1 > room) {
            room = 2 * len + 64;
            PyMem_Free(buf);
            PyMem_Free(starts);
            buf = PyMem_Malloc((size_t)room);
            starts = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)room);
            if (buf == NULL || starts == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
        }
        Py_ssize_t words;
        Py_ssize_t n = normalize_ascii(s, len, buf, starts, &words);
        int trigger = 0;
        for (Py_ssize_t i = 0; check && i < n && !trigger;) {
            const Py_ssize_t start = i;
            while (i < n && buf[i] != ' ') i++;
            const Py_ssize_t wl = i - start;
            trigger = wl < WORD_SLOT && first_ok[wl][buf[start]] && last_ok[wl][buf[i - 1]] &&
                      in_table(table, mask, buf + start, wl);
            i++;
        }
        if (trigger) {
            PyList_SET_ITEM(out, d, Py_NewRef(Py_None));
            continue;
        }
        if (split_hyphens && memchr(buf, '-', (size_t)n) != NULL) {
            /* " ".join(text.replace("-", " ").split()) */
            Py_ssize_t w = 0;
            int prev_sep = 1;
            for (Py_ssize_t i = 0; i < n; i++) {
                const int sep = buf[i] == '-' || buf[i] == ' ';
                if (!sep) {
                    if (prev_sep && w > 0) buf[w++] = ' ';
                    buf[w++] = buf[i];
                }
                prev_sep = sep;
            }
            n = w;
        }
        PyObject *str = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, buf, n);
        if (str == NULL) goto fail;
        PyList_SET_ITEM(out, d, str);
    }
    PyMem_Free(buf);
    PyMem_Free(starts);
    if (check) PyBuffer_Release(&view);
    return out;
fail:
    Py_XDECREF(out);
    PyMem_Free(buf);
    PyMem_Free(starts);
    if (check) PyBuffer_Release(&view);
    return NULL;
}

PyDoc_STRVAR(band_buckets_doc,
             "band_buckets(sigs, n, cols, bands, rows) -> list of (members, sizes)\n\n"
             "sigs: uint32 buffer of n rows of cols values. For each band b, the records whose\n"
             "rows values b*rows.. fold to one 64-bit key with another record's, grouped by key\n"
             "in key order, each group in record order (a stable sort by the key), as int32\n"
             "bytearrays: the members one group after another, and each group's size.");

/* A stable LSD radix sort of idx[0..n) by key, 8 bits a pass, constant bytes skipped. */
static void sort_by_key(uint64_t *key, int32_t *idx, Py_ssize_t n, uint64_t *key2,
                        int32_t *idx2) {
    Py_ssize_t count[8][256];
    memset(count, 0, sizeof count);
    for (Py_ssize_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++) count[d][(key[i] >> (8 * d)) & 0xFF]++;
    uint64_t *ks = key, *kd = key2;
    int32_t *is = idx, *id = idx2;
    for (int d = 0; d < 8; d++) {
        const int shift = 8 * d;
        if (n == 0 || count[d][(ks[0] >> shift) & 0xFF] == n) continue;
        Py_ssize_t at[256], sum = 0;
        for (int b = 0; b < 256; b++) {
            at[b] = sum;
            sum += count[d][b];
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            const Py_ssize_t to = at[(ks[i] >> shift) & 0xFF]++;
            kd[to] = ks[i];
            id[to] = is[i];
        }
        uint64_t *tk = ks;
        ks = kd;
        kd = tk;
        int32_t *ti = is;
        is = id;
        id = ti;
    }
    if (ks != key) {
        memcpy(key, ks, (size_t)n * 8);
        memcpy(idx, is, (size_t)n * 4);
    }
}

static PyObject *k_band_buckets(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *psigs;
    Py_ssize_t n, cols, bands, rows;
    if (!PyArg_ParseTuple(args, "Onnnn", &psigs, &n, &cols, &bands, &rows)) return NULL;
    if (n < 0 || n > INT32_MAX || cols < 1 || bands < 1 || rows < 1 || bands * rows > cols) {
        PyErr_SetString(PyExc_ValueError, "band_buckets: bad n, cols, bands or rows");
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(psigs, &view, 4, n * cols, 0, "sigs") < 0) return NULL;
    const uint32_t *sigs = view.buf;
    PyObject *out = PyList_New(bands);
    uint64_t *key = PyMem_Malloc(sizeof(uint64_t) * (size_t)(2 * n + 1));
    int32_t *idx = PyMem_Malloc(sizeof(int32_t) * (size_t)(3 * n + 1));
    if (out == NULL || key == NULL || idx == NULL) {
        Py_XDECREF(out);
        PyMem_Free(key);
        PyMem_Free(idx);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    int32_t *members = idx + 2 * n; /* the members of one band's shared groups */
    for (Py_ssize_t b = 0; b < bands; b++) {
        Py_ssize_t nmembers = 0, ngroups = 0;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t h = 0xCBF29CE484222325ull;
            const uint32_t *v = sigs + i * cols + b * rows;
            for (Py_ssize_t j = 0; j < rows; j++) {
                h ^= (uint64_t)v[j];
                h *= 0x100000001B3ull;
                h ^= h >> 29;
            }
            key[i] = h;
            idx[i] = (int32_t)i;
        }
        sort_by_key(key, idx, n, key + n, idx + n);
        /* members of runs of two or more, in place at the front of `members`; each run's size
         * into idx + n (free now) */
        int32_t *sizes = idx + n;
        for (Py_ssize_t i = 0; i < n;) {
            Py_ssize_t j = i + 1;
            while (j < n && key[j] == key[i]) j++;
            if (j - i > 1) {
                for (Py_ssize_t k = i; k < j; k++) members[nmembers++] = idx[k];
                sizes[ngroups++] = (int32_t)(j - i);
            }
            i = j;
        }
        Py_END_ALLOW_THREADS
        PyObject *pm = PyByteArray_FromStringAndSize((const char *)members, nmembers * 4);
        PyObject *ps = PyByteArray_FromStringAndSize((const char *)(idx + n), ngroups * 4);
        PyObject *pair = (pm && ps) ? PyTuple_Pack(2, pm, ps) : NULL;
        Py_XDECREF(pm);
        Py_XDECREF(ps);
        if (pair == NULL) {
            Py_DECREF(out);
            PyMem_Free(key);
            PyMem_Free(idx);
            PyBuffer_Release(&view);
            return NULL;
        }
        PyList_SET_ITEM(out, b, pair);
    }
    PyMem_Free(key);
    PyMem_Free(idx);
    PyBuffer_Release(&view);
    return out;
}

PyDoc_STRVAR(large_pairs_doc,
             "large_pairs(codes, sizes, later, coherent) -> (pairs, coherent_mask)\n\n"
             "codes: int32 buffer, the members of large buckets one bucket after another;\n"
             "sizes: int64 buffer, each bucket's size; later: a list of int32 buffers of one\n"
             "length n, record -> its bucket in a later band (-1: alone there). For each\n"
             "bucket and each later band in turn, every pair of members in one bucket of that\n"
             "band as `low << 32 | high` (int64, a pair once per band it shares), unless the\n"
             "bucket is coherent: its pairs so counted exceed `coherent` times its own pairs;\n"
             "a coherent bucket gives no pairs here and is marked in coherent_mask (uint8).");

/* Sorts a[0..n) (values < 2**63) ascending: insertion sort for a short run, else byte-wide
 * counting passes into `scratch` (n values), a pass skipped where every value has one byte. */
static void sort_u64_small(uint64_t *a, Py_ssize_t n, uint64_t *scratch) {
    if (n <= 32) {
        for (Py_ssize_t i = 1; i < n; i++) {
            const uint64_t v = a[i];
            Py_ssize_t j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    Py_ssize_t count[8][256];
    memset(count, 0, sizeof count);
    for (Py_ssize_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++) count[d][(a[i] >> (8 * d)) & 0xFF]++;
    uint64_t *src = a, *dst = scratch;
    for (int d = 0; d < 8; d++) {
        const int shift = 8 * d;
        if (count[d][(src[0] >> shift) & 0xFF] == n) continue;
        Py_ssize_t at[256], sum = 0;
        for (int b = 0; b < 256; b++) {
            at[b] = sum;
            sum += count[d][b];
        }
        for (Py_ssize_t i = 0; i < n; i++) dst[at[(src[i] >> shift) & 0xFF]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * 8);
}

static PyObject *k_large_pairs(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *pcodes, *psizes, *plater;
    double coherent;
    if (!PyArg_ParseTuple(args, "OOO!d", &pcodes, &psizes, &PyList_Type, &plater, &coherent))
        return NULL;
    const Py_ssize_t nlater = PyList_GET_SIZE(plater);
    Py_buffer vcodes, vsizes;
    if (PyObject_GetBuffer(pcodes, &vcodes, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (vcodes.itemsize != 4 && vcodes.len != 0) {
        PyBuffer_Release(&vcodes);
        PyErr_SetString(PyExc_ValueError, "large_pairs: codes must be int32");
        return NULL;
    }
    const Py_ssize_t m = vcodes.len / 4;
    if (PyObject_GetBuffer(psizes, &vsizes, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&vcodes);
        return NULL;
    }
    const Py_ssize_t k = vsizes.len / 8;
    Py_buffer *views = PyMem_Calloc((size_t)nlater + 1, sizeof(Py_buffer));
    const int32_t **later = PyMem_Calloc((size_t)nlater + 1, sizeof(int32_t *));
    Py_ssize_t got = 0, n = -1;
    PyObject *result = NULL;
    uint64_t *tmp = NULL, *scratch = NULL;
    int64_t *out = NULL;
    unsigned char *mask = NULL;
    if (views == NULL || later == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (vsizes.itemsize != 8 && vsizes.len != 0) {
        PyErr_SetString(PyExc_ValueError, "large_pairs: sizes must be int64");
        goto done;
    }
    for (; got < nlater; got++) {
        if (PyObject_GetBuffer(PyList_GET_ITEM(plater, got), &views[got], PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if (views[got].itemsize != 4 || (n >= 0 && views[got].len / 4 != n)) {
            got++;
            PyErr_SetString(PyExc_ValueError, "large_pairs: later bands must be int32, one length");
            goto done;
        }
        n = views[got].len / 4;
        later[got] = views[got].buf;
    }
    const int32_t *codes = vcodes.buf;
    const int64_t *sizes = vsizes.buf;
    Py_ssize_t total = 0, biggest = 0;
    for (Py_ssize_t b = 0; b < k; b++) {
        if (sizes[b] < 0) break;
        total += sizes[b];
        if (sizes[b] > biggest) biggest = sizes[b];
    }
    if (total != m) {
        PyErr_SetString(PyExc_ValueError, "large_pairs: sizes must sum to len(codes)");
        goto done;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        if (codes[i] < 0 || (nlater > 0 && codes[i] >= n)) {
            PyErr_SetString(PyExc_ValueError, "large_pairs: a code outside the later bands");
            goto done;
        }
    }
    tmp = PyMem_Malloc(sizeof(uint64_t) * (size_t)(biggest + 1));
    scratch = PyMem_Malloc(sizeof(uint64_t) * (size_t)(biggest + 1));
    mask = PyMem_Calloc((size_t)k + 1, 1);
    Py_ssize_t cap = 1 << 16, len = 0;
    out = PyMem_RawMalloc(sizeof(int64_t) * (size_t)cap); /* grown without the GIL */
    if (tmp == NULL || scratch == NULL || mask == NULL || out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int oom = 0;
    Py_BEGIN_ALLOW_THREADS
    const int32_t *members = codes;
    for (Py_ssize_t b = 0; b < k && !oom; members += sizes[b], b++) {
        const Py_ssize_t size = sizes[b];
        const double limit = coherent * (double)size * (double)(size - 1) / 2.0;
        const Py_ssize_t start = len;
        double cost = 0.0;
        for (Py_ssize_t j = 0; j < nlater && !oom; j++) {
            const int32_t *where = later[j];
            Py_ssize_t t = 0;
            for (Py_ssize_t i = 0; i < size; i++) {
                const int32_t lab = where[members[i]];
                if (lab >= 0) tmp[t++] = ((uint64_t)(uint32_t)lab << 32) | (uint32_t)members[i];
            }
            sort_u64_small(tmp, t, scratch);
            for (Py_ssize_t i = 0; i < t;) {
                Py_ssize_t e = i + 1;
                while (e < t && (tmp[e] >> 32) == (tmp[i] >> 32)) e++;
                const Py_ssize_t run = e - i;
                if (run > 1) {
                    cost += (double)run * (double)(run - 1) / 2.0;
                    const Py_ssize_t need = len + run * (run - 1) / 2;
                    if (need > cap) {
                        Py_ssize_t grown = cap;
                        while (grown < need) grown *= 2;
                        int64_t *bigger = PyMem_RawRealloc(out, sizeof(int64_t) * (size_t)grown);
                        if (bigger == NULL) {
                            oom = 1;
                            break;
                        }
                        out = bigger;
                        cap = grown;
                    }
                    for (Py_ssize_t x = i; x < e; x++)
                        for (Py_ssize_t y = x + 1; y < e; y++)
                            out[len++] = ((int64_t)(uint32_t)tmp[x] << 32) | (int64_t)(uint32_t)tmp[y];
                }
                i = e;
            }
            if (cost > limit) { /* coherent: its pairs are enumerated once by the caller */
                mask[b] = 1;
                len = start;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (oom) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *pairs = PyByteArray_FromStringAndSize((const char *)out, len * 8);
    PyObject *flags = PyByteArray_FromStringAndSize((const char *)mask, k);
    if (pairs != NULL && flags != NULL) result = PyTuple_Pack(2, pairs, flags);
    Py_XDECREF(pairs);
    Py_XDECREF(flags);
done:
    for (Py_ssize_t j = 0; j < got; j++) PyBuffer_Release(&views[j]);
    PyMem_Free(views);
    PyMem_Free(later);
    PyMem_Free(tmp);
    PyMem_Free(scratch);
    PyMem_Free(mask);
    PyMem_RawFree(out);
    PyBuffer_Release(&vcodes);
    PyBuffer_Release(&vsizes);
    return result;
}

PyDoc_STRVAR(char_jaccard_doc,
             "char_jaccard(texts, k, a, b, out) -> None\n\n"
             "texts: prepared texts (str); a, b: int64 buffers of pairs of indices into texts;\n"
             "out: float64 buffer. The exact Jaccard similarity of the character k-grams\n"
             "(k <= 7) of texts[a[i]] and texts[b[i]], as neardup.sign.text.char_grams makes them (a\n"
             "text shorter than k is one gram): each ASCII gram is its bytes packed in an\n"
             "integer, so no two grams are confused. -1 where a text has no grams, NaN where\n"
             "a text is not ASCII (the caller compares those as sets of strings).");

static PyObject *k_char_jaccard(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *texts, *pa, *pb, *pout;
    int k;
    if (!PyArg_ParseTuple(args, "O!iOOO", &PyList_Type, &texts, &k, &pa, &pb, &pout))
        return NULL;
    if (k < 1 || k > 7) {
        PyErr_SetString(PyExc_ValueError, "char_jaccard: k must be 1..7");
        return NULL;
    }
    const Py_ssize_t nt = PyList_GET_SIZE(texts);
    Py_ssize_t total = 0;
    for (Py_ssize_t t = 0; t < nt; t++) {
        PyObject *x = PyList_GET_ITEM(texts, t);
        if (!PyUnicode_Check(x)) {
            PyErr_Format(PyExc_TypeError, "char_jaccard: text %zd is not str", t);
            return NULL;
        }
        if (PyUnicode_IS_ASCII(x)) {
            const Py_ssize_t len = PyUnicode_GET_LENGTH(x);
            total += len == 0 ? 0 : (len < k ? 1 : len - k + 1);
        }
    }
    Py_buffer va, vb, vout;
    if (PyObject_GetBuffer(pa, &va, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    const Py_ssize_t np_ = va.len / 8;
    PyBuffer_Release(&va);
    if (get_buffer(pa, &va, 8, np_, 0, "a") < 0) return NULL;
    if (get_buffer(pb, &vb, 8, np_, 0, "b") < 0) {
        PyBuffer_Release(&va);
        return NULL;
    }
    if (get_buffer(pout, &vout, 8, np_, 1, "out") < 0) {
        PyBuffer_Release(&va);
        PyBuffer_Release(&vb);
        return NULL;
    }
    const int64_t *ia = va.buf, *ib = vb.buf;
    double *res = vout.buf;
    PyObject *result = NULL;
    int64_t *offsets = PyMem_Malloc(sizeof(int64_t) * (size_t)(nt + 1));
    uint64_t *grams = PyMem_Malloc(sizeof(uint64_t) * (size_t)(total + 1));
    uint64_t *scratch = NULL;
    if (offsets == NULL || grams == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < np_; i++) {
        if (ia[i] < 0 || ia[i] >= nt || ib[i] < 0 || ib[i] >= nt) {
            PyErr_Format(PyExc_IndexError, "pair %zd: index out of range of %zd texts", i, nt);
            goto done;
        }
    }
    /* each ASCII text's sorted distinct grams; -1 as the offset of a text that is not */
    Py_ssize_t at = 0, longest = 0;
    for (Py_ssize_t t = 0; t < nt; t++) {
        PyObject *x = PyList_GET_ITEM(texts, t);
        offsets[t] = at;
        if (!PyUnicode_IS_ASCII(x)) {
            offsets[t] = -1;
            continue;
        }
        const Py_ssize_t len = PyUnicode_GET_LENGTH(x);
        const unsigned char *c = PyUnicode_1BYTE_DATA(x);
        const Py_ssize_t start = at;
        if (len > 0 && len < k) {
            uint64_t v = (uint64_t)len << 56;
            for (Py_ssize_t j = 0; j < len; j++) v |= (uint64_t)c[j] << (8 * j);
            grams[at++] = v;
        } else {
            for (Py_ssize_t i = 0; i + k <= len; i++) {
                uint64_t v = (uint64_t)k << 56;
                for (int j = 0; j < k; j++) v |= (uint64_t)c[i + j] << (8 * j);
                grams[at++] = v;
            }
        }
        if (at - start > longest) longest = at - start;
    }
    offsets[nt] = at;
    scratch = PyMem_Malloc(sizeof(uint64_t) * (size_t)(longest + 1));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* sort and deduplicate each text's grams in place; ends[t] is where its distinct ones end */
    int64_t *ends = PyMem_Malloc(sizeof(int64_t) * (size_t)(nt + 1));
    if (ends == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < nt; t++) {
        if (offsets[t] < 0) continue;
        Py_ssize_t nxt = t + 1;
        while (offsets[nxt] < 0) nxt++; /* offsets[nt] >= 0 */
        uint64_t *g = grams + offsets[t];
        const Py_ssize_t m = offsets[nxt] - offsets[t];
        sort_u64_small(g, m, scratch);
        Py_ssize_t w = 0;
        for (Py_ssize_t i = 0; i < m; i++)
            if (w == 0 || g[i] != g[w - 1]) g[w++] = g[i];
        ends[t] = offsets[t] + w;
    }
    for (Py_ssize_t i = 0; i < np_; i++) {
        const int64_t x = ia[i], y = ib[i];
        if (offsets[x] < 0 || offsets[y] < 0) {
            res[i] = NAN;
            continue;
        }
        const uint64_t *p = grams + offsets[x], *pe = grams + ends[x];
        const uint64_t *q = grams + offsets[y], *qe = grams + ends[y];
        const Py_ssize_t lx = pe - p, ly = qe - q;
        if (lx == 0 || ly == 0) {
            res[i] = -1.0;
            continue;
        }
        Py_ssize_t inter = 0;
        while (p < pe && q < qe) {
            const uint64_t u = *p, v = *q;
            inter += u == v;
            p += u <= v;
            q += v <= u;
        }
        res[i] = (double)inter / (double)(lx + ly - inter);
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(ends);
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(offsets);
    PyMem_Free(grams);
    PyMem_Free(scratch);
    PyBuffer_Release(&va);
    PyBuffer_Release(&vb);
    PyBuffer_Release(&vout);
    return result;
}

static PyMethodDef methods[] = {
    {"signatures", k_signatures, METH_VARARGS, signatures_doc},
    {"normalize", k_normalize, METH_O, normalize_doc},
    {"band_keys", k_band_keys, METH_VARARGS, band_keys_doc},
    {"band_hashes", k_band_hashes, METH_VARARGS, band_hashes_doc},
    {"band_json", k_band_json, METH_VARARGS, band_json_doc},
    {"band_buckets", k_band_buckets, METH_VARARGS, band_buckets_doc},
    {"large_pairs", k_large_pairs, METH_VARARGS, large_pairs_doc},
    {"char_jaccard", k_char_jaccard, METH_VARARGS, char_jaccard_doc},
    {"shingle_hashes", k_shingle_hashes, METH_VARARGS, shingle_hashes_doc},
    {"signed_hashes", k_signed_hashes, METH_VARARGS, signed_hashes_doc},
    {"jaccard_hashed", k_jaccard_hashed, METH_VARARGS, jaccard_hashed_doc},
    {"sort_i64", k_sort_i64, METH_O, sort_i64_doc},
    {"fold_counted", k_fold_counted, METH_VARARGS, fold_counted_doc},
    {"word_table", k_word_table, METH_O, word_table_doc},
    {"any_word", k_any_word, METH_VARARGS, any_word_doc},
    {"prepare_plain", k_prepare_plain, METH_VARARGS, prepare_plain_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "neardup._kernel",
    "MinHash signatures in C (see shingles.py for the reference numpy path).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    init_ascii_map();
    return PyModule_Create(&module);
}
