/* SPDX-License-Identifier: MIT */
/*
 * SCALE-Sim (v2/v3) SRAM/DRAM trace importer. A layer folder holds
 * {IFMAP,FILTER,OFMAP}_{SRAM,DRAM}_TRACE.csv: no header, one row per cycle, "cycle, addr_0 ..
 * addr_k", empty slots -1; DRAM traces print floats, may start at negative cycles, and in CALC
 * bandwidth mode pad rows with 1.0 (detected, dropped and reported). A run folder holds layer0/,
 * layer1/, ...: layers run one after the other, each starting after the previous one ended, with
 * every buffer flushed between them.
 *
 * Mapping (docs/lifetimes.md): ifmap and filter buffers are written by DRAM accesses (fetches)
 * and read by SRAM accesses; the ofmap buffer is written by SRAM accesses (the array's outputs)
 * and read by DRAM accesses (write-back).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "trace_internal.h"

enum { OP_IFMAP, OP_FILTER, OP_OFMAP, OP_COUNT };
static const char *const op_upper[OP_COUNT] = {"IFMAP", "FILTER", "OFMAP"};
static const char *const op_name[OP_COUNT] = {"ifmap", "filter", "ofmap"};

/* --- One trace file ---------------------------------------------------------------------- */

struct ss_file {
	struct sb_trace_reader base;
	struct sb_linebuf lb;
	uint8_t kind;
	bool dram;
	uint32_t word_bytes;
	bool padded; /* CALC-mode 1.0 padding seen */
	uint64_t pad_dropped;
	uint64_t pad_rows;
	int64_t *vals; /* the current row */
	size_t nvals, capvals, pos;
	int64_t cycle;
	char rel[96]; /* "layer0/IFMAP_DRAM_TRACE.csv" for messages */
};

static int ss_file_row(struct ss_file *f)
{
	char *line, *p, *end, *comma;
	size_t len;
	int64_t v;
	size_t run;
	int err, rc;

	for (;;) {
		if ((err = sb_linebuf_next(&f->lb, &line, &len)) <= 0)
			return err;
		end = line + len;
		p = line;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end)
			break; /* skip blank lines */
	}
	comma = memchr(p, ',', (size_t)(end - p));
	rc = sb_parse_int_field(p, comma ? comma : end, &v);
	if (rc == -2)
		return sb_trace_parse_error(f->lb.name, f->lb.line,
		                            "cycle '%.*s' is not a whole number",
		                            (int)((comma ? comma : end) - p), p);
	if (rc < 0)
		return sb_trace_parse_error(f->lb.name, f->lb.line,
		                            "expected a cycle number, got '%.*s'",
		                            (int)((comma ? comma : end) - p), p);
	if (!sb_trace_time_ok(v))
		return sb_trace_parse_error(f->lb.name, f->lb.line,
		                            "cycle %lld is out of range (|time| < 2^62 ticks)",
		                            (long long)v);
	f->cycle = v;
	f->nvals = 0;
	f->pos = 0;
	while (comma) {
		p = comma + 1;
		comma = memchr(p, ',', (size_t)(end - p));
		char *fe = comma ? comma : end;
		const char *q = p;

		while (q < fe && (*q == ' ' || *q == '\t'))
			q++;
		if (q == fe)
			continue; /* trailing comma or empty slot */
		rc = sb_parse_int_field(p, fe, &v);
		if (rc < 0 || v < -1)
			return sb_trace_parse_error(
			    f->lb.name, f->lb.line, "column %zu: %s '%.*s'", f->nvals + 2,
			    rc == -2 ? "address is not a whole number" : "expected an address, got",
			    (int)(fe - p), p);
		if (f->nvals == f->capvals) {
			size_t nc = f->capvals ? f->capvals * 2 : 64;
			int64_t *nv = realloc(f->vals, nc * sizeof(*nv));

			if (!nv)
				return sb_error_set(SB_ERR_NOMEM, "out of memory");
			f->vals = nv;
			f->capvals = nc;
		}
		f->vals[f->nvals++] = v;
	}
	if (f->dram) {
		/* CALC bandwidth mode pads DRAM rows with 1.0 after the real requests */
		for (run = 0; run < f->nvals && f->vals[f->nvals - 1 - run] == 1; run++)
			;
		if (run >= 2)
			f->padded = true;
		if (run >= 2 || (run == 1 && f->padded)) {
			f->nvals -= run;
			f->pad_dropped += run;
			f->pad_rows++;
		}
	}
	return 1;
}

static int ss_file_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct ss_file *f = (struct ss_file *)r;
	size_t out = 0;
	int err;

	while (out < max) {
		if (f->pos == f->nvals) {
			if ((err = ss_file_row(f)) < 0)
				return err;
			if (err == 0) {
				if (f->padded && f->pad_dropped) {
					sb_trace_info_warn(
					    &f->base.info,
					    "'%s': SCALE-Sim CALC bandwidth mode detected: %llu "
					    "DRAM "
					    "rows padded with 1.0 (%llu padding entries dropped); "
					    "the "
					    "DRAM trace of this mode is an estimate, so fetch and "
					    "write-back times, and the lifetimes that start or end "
					    "at them, cannot be trusted",
					    f->rel, (unsigned long long)f->pad_rows,
					    (unsigned long long)f->pad_dropped);
					f->pad_dropped = 0;
				}
				break;
			}
			continue;
		}
		int64_t a = f->vals[f->pos++];

		if (a < 0)
			continue;
		struct sb_trace_record *rec = &recs[out++];

		memset(rec, 0, sizeof(*rec));
		rec->time = f->cycle;
		rec->addr = (uint64_t)a;
		rec->size = f->word_bytes;
		rec->kind = f->kind;
	}
	return (int)out;
}

static void ss_file_free(struct sb_trace_reader *r)
{
	struct ss_file *f = (struct ss_file *)r;

	sb_linebuf_close(&f->lb);
	free(f->vals);
	free(f);
}

static const struct sb_trace_reader_ops ss_file_ops = {.read = ss_file_read, .free = ss_file_free};

/* What the importer needs beyond the file: clock, element size, sorting memory. */
struct ss_opts {
	double clock_hz;
	uint32_t word_bytes;
	uint32_t sort_records;
};

/*
 * Whether the rows of a file go back in time (SCALE-Sim v2 writes the OFMAP DRAM rows in the
 * order tiles are drained, going back by hundreds of cycles): a pass over the cycle column only.
 * Rows it cannot read are left for the real pass to report.
 */
static int ss_prescan(const char *path, const char *rel, bool *sorted)
{
	enum { CHUNK = 64 << 10 };
	struct sb_instream in;
	uint64_t back = 0, rows = 0;
	int64_t max = 0, jump = 0, v;
	char *buf;
	size_t len = 0;
	int n, err;

	*sorted = true;
	if ((err = sb_instream_open(&in, path)) < 0)
		return err;
	if (!(buf = malloc(CHUNK))) {
		sb_instream_close(&in);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	/* lines as raw chunks: only the cycle column is read; what is not a number is skipped */
	for (;;) {
		char *p = buf, *nl, *end;

		if ((n = sb_instream_read(&in, buf + len, CHUNK - len)) < 0)
			break;
		end = buf + len + n;
		while ((nl = memchr(p, '\n', (size_t)(end - p))) || (n == 0 && p < end)) {
			char *le = nl ? nl : end, *comma = memchr(p, ',', (size_t)(le - p));

			if (sb_parse_int_field(p, comma ? comma : le, &v) == 0) {
				if (rows++ && v < max) {
					back++;
					jump = max - v > jump ? max - v : jump;
				}
				max = rows == 1 || v > max ? v : max;
			}
			p = nl ? nl + 1 : end;
		}
		if (n == 0)
			break;
		len = (size_t)(end - p);
		if (len == CHUNK)
			len = 0; /* a line longer than a chunk: the real pass reports it */
		memmove(buf, p, len);
	}
	free(buf);
	sb_instream_close(&in);
	sb_error_clear(); /* the real pass reports what is wrong in the file */
	if (back) {
		*sorted = false;
		sb_info("'%s': %llu of %llu rows go back in time (by up to %lld cycles): "
		        "sorted by cycle, rows of equal cycles in file order",
		        rel, (unsigned long long)back, (unsigned long long)rows, (long long)jump);
	}
	return 0;
}

static int ss_file_open(struct sb_trace_reader **r, const char *path, const char *rel, int op,
                        bool dram, const struct ss_opts *o)
{
	double clock_hz = o->clock_hz;
	uint32_t word_bytes = o->word_bytes;
	bool sorted;
	struct ss_file *f = calloc(1, sizeof(*f));
	int err;

	*r = NULL;
	if (!f)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_linebuf_open(&f->lb, path)) < 0) {
		free(f);
		return err;
	}
	f->base.ops = &ss_file_ops;
	sb_strlcpy(f->base.name, path, sizeof(f->base.name));
	sb_strlcpy(f->rel, rel, sizeof(f->rel));
	sb_trace_info_init(&f->base.info, "scalesim", clock_hz, "cycle");
	err = sb_trace_info_subpart(&f->base.info, op_name[op], SB_SUBPART_SCRATCHPAD, word_bytes,
	                            word_bytes);
	if (err < 0) {
		ss_file_free(&f->base);
		return err;
	}
	f->dram = dram;
	f->word_bytes = word_bytes;
	/* ifmap/filter: DRAM fetches write the buffer, SRAM reads read it; ofmap the opposite */
	if (op == OP_OFMAP)
		f->kind = dram ? SB_ACC_READ : SB_ACC_WRITE;
	else
		f->kind = dram ? SB_ACC_FETCH : SB_ACC_READ;
	*r = &f->base;
	if ((err = ss_prescan(path, rel, &sorted)) < 0) {
		ss_file_free(&f->base);
		*r = NULL;
		return err;
	}
	return sorted ? 0 : sb_trace_sort(r, &f->base, o->sort_records);
}

/* --- A layer: the six files merged in time order ----------------------------------------- */

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Suffixes a trace file may have: plain or compressed (read transparently). */
static const char *const ss_suffixes[] = {"", ".gz", ".zst", ".xz"};

/* The path of dir/NAME_MEM_TRACE.csv[.gz|.zst|.xz] if one exists (its suffix in *suffix). */
static bool find_trace_file(const char *dir, int op, const char *mem, char *path, size_t size,
                            const char **suffix)
{
	for (size_t i = 0; i < SB_ARRAY_SIZE(ss_suffixes); i++) {
		snprintf(path, size, "%s/%s_%s_TRACE.csv%s", dir, op_upper[op], mem,
		         ss_suffixes[i]);
		if (is_file(path)) {
			*suffix = ss_suffixes[i];
			return true;
		}
	}
	return false;
}

static int layer_open(struct sb_trace_reader **r, const char *dir, const char *label,
                      const struct ss_opts *o)
{
	struct sb_trace_reader *kids[2 * OP_COUNT];
	bool missing[2 * OP_COUNT] = {false};
	size_t n = 0;
	char path[4096], rel[96];
	const char *suffix;
	int err;

	*r = NULL;
	for (int op = 0; op < OP_COUNT; op++) {
		for (int d = 0; d < 2; d++) {
			const char *mem = d ? "DRAM" : "SRAM";

			if (!find_trace_file(dir, op, mem, path, sizeof(path), &suffix)) {
				missing[2 * op + d] = true;
				continue;
			}
			snprintf(rel, sizeof(rel), "%s%s%s_%s_TRACE.csv%s", label,
			         *label ? "/" : "", op_upper[op], mem, suffix);
			err = ss_file_open(&kids[n], path, rel, op, d == 1, o);
			if (err < 0)
				goto fail;
			n++;
		}
	}
	if (n == 0)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "'%s' holds no SCALE-Sim trace (*_SRAM_TRACE.csv, "
		                    "*_DRAM_TRACE.csv, possibly .gz, .zst or .xz)",
		                    dir);
	if ((err = sb_trace_merge(r, kids, n, dir)) < 0)
		return err;
	for (int op = 0; op < OP_COUNT; op++)
		for (int d = 0; d < 2; d++)
			if (missing[2 * op + d])
				sb_trace_info_warn(
				    &(*r)->info,
				    "'%s': no %s_%s_TRACE.csv: the %s buffer's "
				    "%s are missing",
				    dir, op_upper[op], d ? "DRAM" : "SRAM", op_name[op],
				    (op == OP_OFMAP) == (d == 1) ? "reads" : "writes");
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		sb_trace_reader_free(kids[i]);
	return err;
}

/* --- A run: layers in sequence ----------------------------------------------------------- */

struct ss_run {
	struct sb_trace_reader base;
	char dir[3072];
	int *layers; /* layer numbers, ascending */
	size_t nlayers, next;
	struct sb_trace_reader *cur;
	int cur_layer;
	uint32_t cur_warned;
	uint16_t map[SB_TRACE_MAX_SUBPARTS]; /* current layer's subparts -> the run's */
	struct ss_opts o;
	bool have_time;
	int64_t last_time; /* last time emitted */
	int64_t offset;    /* added to the current layer's times */
	bool need_offset;  /* first record of a new layer decides the offset */
	int flush_pending; /* flush records still to emit for the ended layer */
};

static int ss_run_open_layer(struct ss_run *s)
{
	char path[4096], label[32];
	int err;

	snprintf(label, sizeof(label), "layer%d", s->layers[s->next]);
	snprintf(path, sizeof(path), "%s/%s", s->dir, label);
	err = layer_open(&s->cur, path, label, &s->o);
	if (err < 0)
		return err;
	s->cur_warned = 0;
	s->cur_layer = s->layers[s->next];
	s->next++;
	s->need_offset = s->have_time;
	return 0;
}

static int ss_run_sync(struct ss_run *s)
{
	const struct sb_trace_info *ci = &s->cur->info;

	for (uint32_t i = 0; i < ci->nsubparts; i++) {
		int err =
		    sb_trace_info_subpart(&s->base.info, ci->subparts[i].name,
		                          SB_SUBPART_SCRATCHPAD, s->o.word_bytes, s->o.word_bytes);

		if (err < 0)
			return err;
		s->map[i] = (uint16_t)err;
	}
	for (; s->cur_warned < ci->nwarnings; s->cur_warned++)
		sb_trace_info_add_warning(&s->base.info, ci->warnings[s->cur_warned]);
	return 0;
}

static int ss_run_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max)
{
	struct ss_run *s = (struct ss_run *)r;
	size_t out = 0;
	int n, err;

	while (out < max) {
		if (s->flush_pending > 0) {
			/* between layers: every buffer is flushed at the last time of the layer */
			struct sb_trace_record *rec = &recs[out++];

			memset(rec, 0, sizeof(*rec));
			rec->time = s->last_time;
			rec->kind = SB_ACC_FLUSH;
			rec->subpart =
			    (uint16_t)(s->base.info.nsubparts - (uint32_t)s->flush_pending);
			s->flush_pending--;
			continue;
		}
		if (!s->cur) {
			if (s->next == s->nlayers)
				break;
			if ((err = ss_run_open_layer(s)) < 0)
				return err;
		}
		n = sb_trace_read(s->cur, recs + out, max - out);
		if (n < 0)
			return n;
		if ((err = ss_run_sync(s)) < 0)
			return err;
		if (n == 0) {
			sb_trace_reader_free(s->cur);
			s->cur = NULL;
			if (s->next < s->nlayers && s->have_time)
				s->flush_pending = (int)s->base.info.nsubparts;
			continue;
		}
		if (s->need_offset) {
			/* the new layer starts one cycle after the previous one ended */
			s->offset = s->last_time + 1 - recs[out].time;
			s->need_offset = false;
		}
		for (int i = 0; i < n; i++) {
			struct sb_trace_record *rec = &recs[out + (size_t)i];

			if (__builtin_add_overflow(rec->time, s->offset, &rec->time) ||
			    !sb_trace_time_ok(rec->time))
				return sb_error_set(
				    SB_ERR_PARSE,
				    "'%s': layer%d placed after the previous layers "
				    "reaches cycle %lld, out of range (|time| < 2^62 "
				    "ticks)",
				    s->base.name, s->cur_layer, (long long)rec->time);
			rec->group = (uint32_t)s->cur_layer;
			rec->subpart = s->map[rec->subpart];
		}
		s->last_time = recs[out + (size_t)n - 1].time;
		s->have_time = true;
		out += (size_t)n;
	}
	return (int)out;
}

static void ss_run_free(struct sb_trace_reader *r)
{
	struct ss_run *s = (struct ss_run *)r;

	sb_trace_reader_free(s->cur);
	free(s->layers);
	free(s);
}

static const struct sb_trace_reader_ops ss_run_ops = {.read = ss_run_read, .free = ss_run_free};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Layer numbers of the layerN folders in dir. */
static int find_layers(const char *dir, int **layers, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	char path[4096];

	*layers = NULL;
	*n = 0;
	if (!d)
		return sb_error_set(errno == ENOENT ? SB_ERR_NOT_FOUND : SB_ERR_IO,
		                    "cannot open folder '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char *end;
		long v;

		if (strncmp(de->d_name, "layer", 5) || !de->d_name[5])
			continue;
		v = strtol(de->d_name + 5, &end, 10);
		if (*end || v < 0 || v > 1000000)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!is_dir(path))
			continue;
		if (*n == cap) {
			int *nl = realloc(*layers, (cap ? cap * 2 : 8) * sizeof(int));

			if (!nl) {
				closedir(d);
				return sb_error_set(SB_ERR_NOMEM, "out of memory");
			}
			*layers = nl;
			cap = cap ? cap * 2 : 8;
		}
		(*layers)[(*n)++] = (int)v;
	}
	closedir(d);
	if (*n)
		qsort(*layers, *n, sizeof(int), cmp_int);
	return 0;
}

int sb_trace_open_scalesim(struct sb_trace_reader **r, const char *path,
                           const struct sb_trace_options *opt)
{
	double clock_hz = opt->clock_hz > 0 ? opt->clock_hz : SB_TRACE_DEFAULT_CLOCK_HZ;
	uint32_t word = opt->word_bytes ? opt->word_bytes : 1;
	struct ss_run *s;
	char probe[4096];
	int err;

	*r = NULL;
	if (!is_dir(path))
		return sb_error_set(
		    SB_ERR_NOT_FOUND,
		    "'%s' is not a folder: SCALE-Sim input is a run folder (layer0/, "
		    "...) or a layer folder (*_SRAM_TRACE.csv)",
		    path);
	if (word & (word - 1))
		return sb_error_set(SB_ERR_INVAL, "word size %u B is not a power of two", word);
	s = calloc(1, sizeof(*s));
	if (!s)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	s->base.ops = &ss_run_ops;
	sb_strlcpy(s->base.name, path, sizeof(s->base.name));
	sb_strlcpy(s->dir, path, sizeof(s->dir));
	s->o = (struct ss_opts){clock_hz, word, opt->sort_records};
	sb_trace_info_init(&s->base.info, "scalesim", clock_hz, "cycle");
	s->base.info.fields = SB_FIELD_GROUP;
	/* the three buffers, in a fixed order */
	for (int op = 0; op < OP_COUNT; op++)
		if ((err = sb_trace_info_subpart(&s->base.info, op_name[op], SB_SUBPART_SCRATCHPAD,
		                                 word, word)) < 0)
			goto fail;
	bool layer = false;
	const char *suffix;

	for (int op = 0; !layer && op < OP_COUNT; op++)
		for (int d = 0; d < 2; d++)
			layer |= find_trace_file(path, op, d ? "DRAM" : "SRAM", probe,
			                         sizeof(probe), &suffix);
	if (layer) {
		/* a layer folder: one layer, no offset */
		err = layer_open(&s->cur, path, "", &s->o);
		if (err < 0)
			goto fail;
		if ((err = ss_run_sync(s)) < 0)
			goto fail;
	} else {
		if ((err = find_layers(path, &s->layers, &s->nlayers)) < 0)
			goto fail;
		if (s->nlayers == 0) {
			err = sb_error_set(
			    SB_ERR_NOT_FOUND,
			    "'%s' is neither a SCALE-Sim run folder (layer0/, ...) nor "
			    "a layer folder (*_SRAM_TRACE.csv)",
			    path);
			goto fail;
		}
	}
	*r = &s->base;
	return 0;
fail:
	ss_run_free(&s->base);
	return err;
}
