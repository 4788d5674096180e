/* ngram_counter.c: the minimal C n-gram counter, the floor `evalstream bench --compare`
 * measures BLEU against (issue 19: evalstream's BLEU within 1.5x of its CPU time).
 *
 * Usage: ngram_counter HYP.txt REF.txt
 * Both files hold one segment per line, already tokenized (tokens separated by single
 * spaces), line-aligned, one reference per segment. It does what corpus BLEU needs and
 * nothing else: no JSON, no 13a tokenization, no Unicode. Tokens are interned to integer
 * ids (exact: an id table compares the bytes); a segment's reference n-grams (orders 1-4)
 * go into a hash table keyed by their ids, and each hypothesis n-gram found there takes one
 * of its counts (clipping). The score is sacrebleu's corpus BLEU (exp smoothing, which only
 * acts on an order without matches), printed as {"bleu": SCORE} on 0..100.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ORDER 4

static void die(const char *msg, const char *arg) {
	fprintf(stderr, "ngram_counter: %s%s\n", msg, arg ? arg : "");
	exit(1);
}

static void *xrealloc(void *p, size_t n) {
	p = realloc(p, n);
	if (!p && n) die("out of memory", NULL);
	return p;
}

static char *slurp(const char *path, size_t *len) {
	FILE *f = fopen(path, "rb");
	if (!f) die("cannot open ", path);
	size_t cap = 1 << 20, n = 0;
	if (fseek(f, 0, SEEK_END) == 0) { /* a regular file: read it in one go */
		long size = ftell(f);
		if (size > 0) cap = (size_t)size + 1;
		rewind(f);
	}
	char *buf = xrealloc(NULL, cap + 8);
	for (;;) {
		if (n == cap) buf = xrealloc(buf, (cap *= 2) + 8);
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0) break;
		n += k;
	}
	if (ferror(f)) die("cannot read ", path);
	fclose(f);
	memset(buf + n, 0, 8); /* tokens are read eight bytes at a time */
	*len = n;
	return buf;
}

static uint64_t mix64(uint64_t x) {
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* load8 reads the first min(n, 8) bytes of s as a word, the rest zero; s has eight
 * readable bytes (slurp pads its buffers). */
static uint64_t load8(const char *s, size_t n) {
	uint64_t w;
	memcpy(&w, s, 8);
	if (n < 8) w &= (1ull << (8 * n)) - 1; /* little-endian: the first n bytes */
	return w;
}

/* hash_bytes hashes a token eight bytes at a time; *first gets its first word. */
static uint64_t hash_bytes(const char *s, size_t n, uint64_t *first) {
	uint64_t h = n * 0x9e3779b97f4a7c15ull, w = load8(s, n);
	*first = w;
	for (;;) {
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
		if (n <= 8) break;
		s += 8;
		n -= 8;
		w = load8(s, n);
	}
	return mix64(h);
}

/* The vocabulary: open addressing over (hash, bytes) -> id. */
typedef struct {
	uint64_t hash, first; /* first: the token's first eight bytes, zero-padded */
	const char *s;
	uint32_t n, id;
} vslot;
static vslot *vocab;
static size_t vcap, vlen;

static void vocab_grow(void) {
	size_t ncap = vcap ? vcap * 2 : 1 << 16;
	vslot *nv = calloc(ncap, sizeof *nv);
	if (!nv) die("out of memory", NULL);
	for (size_t i = 0; i < vcap; i++) {
		if (!vocab[i].s) continue;
		size_t j = vocab[i].hash & (ncap - 1);
		while (nv[j].s) j = (j + 1) & (ncap - 1);
		nv[j] = vocab[i];
	}
	free(vocab);
	vcap = ncap;
	vocab = nv;
}

static uint32_t intern(const char *s, size_t n) {
	if ((vlen + 1) * 2 > vcap) vocab_grow();
	uint64_t first, h = hash_bytes(s, n, &first);
	size_t j = h & (vcap - 1);
	while (vocab[j].s) {
		vslot *v = &vocab[j];
		if (v->hash == h && v->n == n && v->first == first && (n <= 8 || memcmp(v->s + 8, s + 8, n - 8) == 0)) return v->id;
		j = (j + 1) & (vcap - 1);
	}
	vocab[j] = (vslot){h, first, s, (uint32_t)n, (uint32_t)vlen};
	return (uint32_t)vlen++;
}

/* The reference n-grams of one segment: (order, ids) -> count left to match. A slot belongs
 * to the current segment when its gen is the segment's number, so the table is never cleared. */
typedef struct {
	uint32_t ids[MAX_ORDER]; /* the n-gram's ids, then NONE: the order is implied */
	uint32_t gen;
	int32_t count;
} nslot;
#define NONE UINT32_MAX
static nslot *grams;
static size_t galloc, gcap; /* slots allocated; slots the current segment uses (a power of 2) */
static uint32_t gen;

/* gram_find finds the n-gram key (MAX_ORDER ids, NONE-padded) whose hash is h, or inserts it
 * with count 0. */
static nslot *gram_find(const uint32_t *key, uint64_t h, int insert) {
	size_t j = (h ^ (h >> 31)) & (gcap - 1);
	for (;;) {
		nslot *g = &grams[j];
		if (g->gen != gen) {
			if (!insert) return NULL;
			g->gen = gen;
			memcpy(g->ids, key, sizeof g->ids);
			g->count = 0;
			return g;
		}
		if (g->ids[0] == key[0] && g->ids[1] == key[1] && g->ids[2] == key[2] && g->ids[3] == key[3]) return g;
		j = (j + 1) & (gcap - 1);
	}
}

/* tokenize splits [s, end) on spaces into interned ids. */
static size_t tokenize(const char *s, const char *end, uint32_t **ids, size_t *cap) {
	size_t n = 0;
	while (s < end) {
		while (s < end && *s == ' ') s++;
		const char *t = s;
		while (s < end && *s != ' ') s++;
		if (s > t) {
			if (n == *cap) *ids = xrealloc(*ids, (*cap = *cap ? *cap * 2 : 256) * sizeof **ids);
			(*ids)[n++] = intern(t, (size_t)(s - t));
		}
	}
	return n;
}

static const char *line_end(const char *s, const char *end) {
	const char *e = memchr(s, '\n', (size_t)(end - s));
	return e ? e : end;
}

int main(int argc, char **argv) {
	if (argc != 3) die("usage: ngram_counter HYP.txt REF.txt", NULL);
	size_t hn, rn;
	char *hyp = slurp(argv[1], &hn), *ref = slurp(argv[2], &rn);
	const char *hp = hyp, *hend = hyp + hn, *rp = ref, *rend = ref + rn;
	uint32_t *h = NULL, *r = NULL;
	size_t hcap = 0, rcap = 0;
	uint64_t matches[MAX_ORDER] = {0}, totals[MAX_ORDER] = {0}, sys_len = 0, ref_len = 0;
	while (hp < hend || rp < rend) {
		if (hp >= hend || rp >= rend) die("the files have different numbers of lines", NULL);
		const char *he = line_end(hp, hend), *re = line_end(rp, rend);
		size_t nh = tokenize(hp, he, &h, &hcap), nr = tokenize(rp, re, &r, &rcap);
		hp = he + 1;
		rp = re + 1;
		sys_len += nh;
		ref_len += nr;
		/* A table of at least twice the segment's reference n-grams, no larger: it stays in
		 * the cache. */
		size_t need = 2 * MAX_ORDER * (nr + 1);
		for (gcap = 64; gcap < need; gcap *= 2) {
		}
		if (gcap > galloc) {
			free(grams);
			grams = calloc(gcap, sizeof *grams);
			if (!grams) die("out of memory", NULL);
			galloc = gcap;
			gen = 0;
		}
		gen++;
		/* The n-grams starting at i, orders 1-4, hashed incrementally (one multiply per token). */
		for (size_t i = 0; i < nr; i++) {
			uint32_t key[MAX_ORDER] = {NONE, NONE, NONE, NONE};
			uint64_t hh = 0;
			for (int o = 1; o <= MAX_ORDER && i + o <= nr; o++) {
				key[o - 1] = r[i + o - 1];
				hh = (hh ^ (r[i + o - 1] + (uint64_t)o)) * 0x9e3779b97f4a7c15ull;
				gram_find(key, hh, 1)->count++;
			}
		}
		for (int o = 1; o <= MAX_ORDER; o++)
			if (nh >= (size_t)o) totals[o - 1] += nh - o + 1;
		for (size_t i = 0; i < nh; i++) {
			uint32_t key[MAX_ORDER] = {NONE, NONE, NONE, NONE};
			uint64_t hh = 0;
			for (int o = 1; o <= MAX_ORDER && i + o <= nh; o++) {
				key[o - 1] = h[i + o - 1];
				hh = (hh ^ (h[i + o - 1] + (uint64_t)o)) * 0x9e3779b97f4a7c15ull;
				nslot *g = gram_find(key, hh, 0);
				if (!g) break; /* no longer n-gram from i can match either */
				if (g->count > 0) {
					g->count--;
					matches[o - 1]++;
				}
			}
		}
	}
	/* sacrebleu's BLEU.compute_bleu: exp smoothing, effective order off. */
	double bp = 1.0;
	if (sys_len < ref_len) bp = sys_len > 0 ? exp(1.0 - (double)ref_len / (double)sys_len) : 0.0;
	double prec[MAX_ORDER] = {0}, smooth = 1.0;
	for (int n = 0; n < MAX_ORDER; n++) {
		if (totals[n] == 0) break;
		if (matches[n] == 0) {
			smooth *= 2;
			prec[n] = 100.0 / (smooth * (double)totals[n]);
		} else {
			prec[n] = 100.0 * (double)matches[n] / (double)totals[n];
		}
	}
	double sum = 0;
	for (int n = 0; n < MAX_ORDER; n++) sum += prec[n] == 0 ? -9999999999.0 : log(prec[n]);
	printf("{\"bleu\": %.17g}\n", bp * exp(sum / MAX_ORDER));
	return 0;
}
