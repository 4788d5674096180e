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
	char *buf = xrealloc(NULL, cap);
	for (;;) {
		if (n == cap) buf = xrealloc(buf, cap *= 2);
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0) break;
		n += k;
	}
	if (ferror(f)) die("cannot read ", path);
	fclose(f);
	*len = n;
	return buf;
}

static uint64_t hash_bytes(const char *s, size_t n) {
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static uint64_t mix64(uint64_t x) {
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* The vocabulary: open addressing over (hash, bytes) -> id. */
typedef struct {
	uint64_t hash;
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
	uint64_t h = hash_bytes(s, n);
	size_t j = h & (vcap - 1);
	while (vocab[j].s) {
		if (vocab[j].hash == h && vocab[j].n == n && memcmp(vocab[j].s, s, n) == 0) return vocab[j].id;
		j = (j + 1) & (vcap - 1);
	}
	vocab[j] = (vslot){h, s, (uint32_t)n, (uint32_t)vlen};
	return (uint32_t)vlen++;
}

/* The reference n-grams of one segment: (order, ids) -> count left to match. A slot belongs
 * to the current segment when its gen is the segment's number, so the table is never cleared. */
typedef struct {
	uint32_t ids[MAX_ORDER];
	uint32_t order, gen;
	int32_t count;
} nslot;
static nslot *grams;
static size_t gcap;
static uint32_t gen;

static uint64_t gram_hash(const uint32_t *ids, int order) {
	uint64_t h = (uint64_t)order;
	for (int k = 0; k < order; k++) h = mix64(h ^ ((uint64_t)ids[k] + 0x9e3779b97f4a7c15ull * (k + 1)));
	return h;
}

static nslot *gram_find(const uint32_t *ids, int order, int insert) {
	size_t j = gram_hash(ids, order) & (gcap - 1);
	for (;;) {
		nslot *g = &grams[j];
		if (g->gen != gen) {
			if (!insert) return NULL;
			g->gen = gen;
			g->order = (uint32_t)order;
			memcpy(g->ids, ids, order * sizeof *ids);
			g->count = 0;
			return g;
		}
		if (g->order == (uint32_t)order && memcmp(g->ids, ids, order * sizeof *ids) == 0) return g;
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
		size_t need = 4 * MAX_ORDER * (nr + 1);
		if (need > gcap / 2) {
			size_t ncap = gcap ? gcap : 1024;
			while (need > ncap / 2) ncap *= 2;
			free(grams);
			grams = calloc(ncap, sizeof *grams);
			if (!grams) die("out of memory", NULL);
			gcap = ncap;
			gen = 0;
		}
		gen++;
		for (int o = 1; o <= MAX_ORDER; o++)
			for (size_t i = 0; i + o <= nr; i++) gram_find(r + i, o, 1)->count++;
		for (int o = 1; o <= MAX_ORDER; o++) {
			if (nh >= (size_t)o) totals[o - 1] += nh - o + 1;
			for (size_t i = 0; i + o <= nh; i++) {
				nslot *g = gram_find(h + i, o, 0);
				if (g && g->count > 0) {
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
