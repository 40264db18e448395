/* SPDX-License-Identifier: MIT */
/*
 * The trace model shared by every source of memory accesses (systolic-array and GPU simulators,
 * measured HMC traces, CSV files, the project's binary format `sbt`), a streaming reader
 * interface over it, the importers and the writers (CSV, sbt). docs/trace-format.md describes
 * the formats; docs/lifetimes.md how the lifetime engine interprets the records.
 *
 * Readers stream: they hold one block of records at a time, never the whole trace, so a trace
 * larger than memory is normal. Records come out in time order per subpartition (importers check
 * it and reject traces that go back in time, naming the file and line).
 */
#ifndef STACKBENCH_TRACE_H
#define STACKBENCH_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an access does to the memory (the subpartition) it names. */
enum sb_access_kind {
	SB_ACC_READ = 0,  /* a read (load) of the stored value */
	SB_ACC_WRITE = 1, /* a store from the processing element: a new value */
	SB_ACC_FETCH = 2, /* a fill / fetch from the next level: a new value */
	SB_ACC_FLUSH =
	    3, /* end of a program phase: every live value is invalidated (addr unused) */
	SB_ACC_KIND_COUNT
};

/*
 * Cache outcome of an access, where the source knows it. The GPGPU-Sim status codes 0..5 map to
 * SB_CACHE_HIT..SB_CACHE_MSHR_HIT (code + 1).
 */
enum sb_cache_status {
	SB_CACHE_NONE = 0, /* not a cache access, or unknown */
	SB_CACHE_HIT = 1,
	SB_CACHE_HIT_RESERVED = 2,
	SB_CACHE_MISS = 3,
	SB_CACHE_RESERVATION_FAIL = 4,
	SB_CACHE_SECTOR_MISS = 5,
	SB_CACHE_MSHR_HIT = 6,
	SB_CACHE_STATUS_COUNT
};

/* Optional fields a trace carries (sb_trace_info.fields); time, subpartition, address, size
 * and kind are always present. */
enum sb_trace_field {
	SB_FIELD_CACHE = 1u << 0,   /* cache status */
	SB_FIELD_UNIT = 1u << 1,    /* issuing unit (SM, port, core) */
	SB_FIELD_PC = 1u << 2,      /* instruction address */
	SB_FIELD_SAMPLE = 1u << 3,  /* sample id (sampled traces) */
	SB_FIELD_LATENCY = 1u << 4, /* latency in ticks (measured traces) */
	SB_FIELD_GROUP = 1u << 5,   /* group: kernel id, layer, phase */
	SB_FIELD_ALL = (1u << 6) - 1
};

/*
 * Times are bounded so that no difference or span of two times overflows: readers, writers and
 * analyses refuse a time outside ±SB_TRACE_TIME_MAX ticks (2^62 - 1: 146 years of 1 GHz cycles,
 * 53 days of picoseconds).
 */
#define SB_TRACE_TIME_MAX ((INT64_C(1) << 62) - 1)

static inline bool sb_trace_time_ok(int64_t t)
{
	return t >= -SB_TRACE_TIME_MAX && t <= SB_TRACE_TIME_MAX;
}

/* The clocks (ticks per second) a trace may have: 1 kHz .. 10 THz. */
#define SB_TRACE_CLOCK_MIN_HZ 1e3
#define SB_TRACE_CLOCK_MAX_HZ 1e13

static inline bool sb_trace_clock_ok(double hz)
{
	return hz >= SB_TRACE_CLOCK_MIN_HZ && hz <= SB_TRACE_CLOCK_MAX_HZ;
}

/* One access. 48 bytes; fields a trace does not carry are 0. */
struct sb_trace_record {
	int64_t time;     /* ticks; sb_trace_info.tick_hz ticks per second */
	uint64_t addr;    /* in units of the subpartition's addr_unit_bytes */
	uint64_t pc;      /* instruction address */
	uint32_t size;    /* bytes */
	uint32_t unit;    /* issuing unit */
	uint32_t sample;  /* sample id */
	uint32_t latency; /* ticks */
	uint32_t group;   /* kernel id, layer, phase */
	uint16_t subpart; /* index into sb_trace_info.subparts */
	uint8_t kind;     /* enum sb_access_kind */
	uint8_t cache;    /* enum sb_cache_status */
};

enum sb_subpart_type {
	SB_SUBPART_SCRATCHPAD = 0, /* software-managed buffer: every access is what it says */
	SB_SUBPART_CACHE = 1,      /* cache: hits and misses, write-allocate policy applies */
};

#define SB_TRACE_NAME_MAX 32
#define SB_TRACE_MAX_SUBPARTS 256
#define SB_TRACE_MAX_WARNINGS 8
#define SB_TRACE_WARNING_MAX 320

/* An on-chip memory component: a cache level, a scratchpad buffer, a vault, ... */
struct sb_trace_subpart {
	char name[SB_TRACE_NAME_MAX];
	uint8_t type;             /* enum sb_subpart_type */
	uint8_t per_unit;         /* private to each issuing unit (per-SM L1): unit is part of
	                             the address */
	uint32_t addr_unit_bytes; /* bytes per address unit (1: byte addresses; SCALE-Sim: word) */
	uint32_t block_bytes;     /* granularity of values (line, sector, word), a power-of-two
	                             multiple of addr_unit_bytes */
};

/*
 * How a measured trace was sampled (docs/trace-format.md, "Sampled traces"). A board's trace
 * buffer records bursts of back-to-back requests separated by gaps and can lose records when it
 * cannot drain fast enough; the trace holds what was captured. The board's own request
 * counters over the same interval give the accesses executed, so the sampling density
 * r = records in the trace / executed is known. A trace whose capture has sampled == 0 is a
 * complete trace (every simulator trace).
 */
struct sb_trace_capture {
	uint32_t sampled;       /* 1: the records are a sample of a longer stream of accesses */
	uint32_t burst_records; /* records per burst the capture was set to (0: unknown) */
	uint64_t gap_ticks;     /* gap between bursts, in ticks of the trace (0: none) */
	uint64_t executed;      /* accesses the board executed during the capture (its counters) */
	uint64_t captured;      /* records the board captured, lost ones included */
	uint64_t lost_records;  /* records the board dropped (buffer overrun): not in the trace */
	uint64_t bursts;        /* bursts (samples) begun */
	uint64_t lost_bursts;   /* bursts that lost records, in whole or in part */
	int64_t start, end;     /* the captured interval, in ticks */
};

#define SB_TRACE_MAX_ATTRS 32
#define SB_TRACE_ATTR_KEY_MAX 32
#define SB_TRACE_ATTR_VALUE_MAX 160

/* A provenance attribute: board identity, capture settings, address mapping, ... */
struct sb_trace_attr {
	char key[SB_TRACE_ATTR_KEY_MAX];     /* [A-Za-z0-9_.-]+ */
	char value[SB_TRACE_ATTR_VALUE_MAX]; /* printable text */
};

/* What a trace is: clock, subpartitions, fields, and warnings its importer raised. */
struct sb_trace_info {
	double tick_hz;                 /* ticks per second (the clock, for cycle traces) */
	char time_unit[8];              /* "cycle", "ns" or "ps": what one tick is */
	char source[SB_TRACE_NAME_MAX]; /* the format it was imported from */
	uint32_t fields;                /* enum sb_trace_field bits */
	uint32_t nsubparts;
	struct sb_trace_subpart subparts[SB_TRACE_MAX_SUBPARTS];
	uint32_t nwarnings;
	char warnings[SB_TRACE_MAX_WARNINGS][SB_TRACE_WARNING_MAX];
	struct sb_trace_capture capture; /* how it was sampled (capture.sampled == 0: complete) */
	uint32_t nattrs;
	struct sb_trace_attr attrs[SB_TRACE_MAX_ATTRS]; /* provenance, in the order set */
};

enum sb_trace_format {
	SB_TRACE_SCALESIM = 0, /* SCALE-Sim v2/v3 run or layer folder */
	SB_TRACE_GPGPUSIM = 1, /* GPGPU-Sim / Accel-Sim L1/L2 cache log */
	SB_TRACE_CSV = 2,      /* CSV with named columns */
	SB_TRACE_SBT = 3,      /* stackbench binary trace */
	SB_TRACE_FORMAT_COUNT
};

/* Importer options; zero means "the default" for every field. */
struct sb_trace_options {
	double clock_hz;       /* clock of cycle traces (default 1 GHz) */
	uint32_t word_bytes;   /* SCALE-Sim element size in bytes (default 1) */
	uint32_t block_bytes;  /* GPGPU-Sim / CSV value granularity in bytes (default 32 / 1) */
	uint32_t sort_records; /* records an importer sorting rows holds in memory (default
	                          SB_TRACE_SORT_RECORDS); more are sorted through the disk */
	uint32_t one_pass;     /* csv and gpgpusim files: no first pass to find records that go
	                          back in time; a read fails on the first one instead, and
	                          sb_trace_reader_unsorted() tells (open again without one_pass
	                          to have them sorted) */
};

/* An open trace: a source of records. */
struct sb_trace_reader;

/* The operations a reader implements (for importers outside this library). */
struct sb_trace_reader_ops {
	/* Fill up to max records; return the count, 0 at the end, or a negative SB_ERR_*. */
	int (*read)(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max);
	void (*free)(struct sb_trace_reader *r);
	/* optional: the records of the whole trace, known before reading them; 0 or
	   SB_ERR_NOT_SUPPORTED */
	int (*total)(const struct sb_trace_reader *r, uint64_t *records);
};

struct sb_trace_reader {
	const struct sb_trace_reader_ops *ops;
	struct sb_trace_info info; /* may grow (subparts, warnings) while reading */
	char name[256];            /* what it reads, for messages */
	bool unsorted;             /* a read failed: a record went back in time (one_pass) */
};

/* "scalesim" -> SB_TRACE_SCALESIM ...; SB_ERR_INVAL naming the known formats otherwise. */
int sb_trace_format_parse(const char *name, enum sb_trace_format *fmt);
const char *sb_trace_format_name(enum sb_trace_format fmt);

const char *sb_access_kind_name(enum sb_access_kind kind);
const char *sb_cache_status_name(enum sb_cache_status status);

/*
 * Open one input. SCALE-Sim takes a run folder (layer0/, layer1/, ... run one after the other)
 * or a layer folder; the others take a file ("-" is standard input for csv, gpgpusim and sbt).
 * Files compressed with gzip, zstd or xz are read transparently (told by their first bytes).
 * Records that go back in time are sorted (stable, bounded memory) for scalesim, and for csv
 * and gpgpusim files (not standard input): these are read once at open to find out, so a
 * malformed line of theirs is reported here. Returns 0, SB_ERR_NOT_FOUND, SB_ERR_IO,
 * SB_ERR_PARSE (file and line in the detail), SB_ERR_VERSION (sbt of an unknown major version), SB_ERR_INVAL (a clock out of
 * range, a folder given as a file) or SB_ERR_NOMEM.
 */
int sb_trace_open(struct sb_trace_reader **r, enum sb_trace_format fmt, const char *path,
                  const struct sb_trace_options *opt);

/*
 * Open a trace held in memory: csv, gpgpusim or sbt, compressed or not (SB_ERR_NOT_SUPPORTED for
 * scalesim, a folder). The bytes are read in place and must outlive the reader; name is used in
 * messages. For tests and fuzzing: the parsers see bytes, with no file in between.
 */
int sb_trace_open_mem(struct sb_trace_reader **r, enum sb_trace_format fmt, const char *name,
                      const void *data, size_t len, const struct sb_trace_options *opt);

/*
 * Open several inputs of one format as one trace: records are merged in time order (writes
 * before reads at equal times), subpartitions are joined by name. All inputs must have the same
 * clock (SB_ERR_MISMATCH). One input is opened directly.
 */
int sb_trace_open_many(struct sb_trace_reader **r, enum sb_trace_format fmt,
                       const char *const *paths, size_t npaths, const struct sb_trace_options *opt);

/*
 * Merge readers that are already open (takes ownership of them, also on failure). name is used
 * in messages.
 */
int sb_trace_merge(struct sb_trace_reader **r, struct sb_trace_reader **children, size_t n,
                   const char *name);

/* The inputs of one trace, to open it (again: threads, shards, a second pass) by value. */
struct sb_trace_source {
	enum sb_trace_format fmt;
	const char *const *paths;
	size_t npaths;
	struct sb_trace_options opt;
};

/* Threads an analysis runs at most. */
#define SB_ANALYSIS_MAX_THREADS 64

/* sb_trace_open_many() of a source. */
int sb_trace_open_source(struct sb_trace_reader **r, const struct sb_trace_source *src);

/*
 * The records of the whole trace when the reader knows them before reading (an sbt file on
 * disk: its blocks' counts): 0, else SB_ERR_NOT_SUPPORTED (read to count).
 */
int sb_trace_reader_total(const struct sb_trace_reader *r, uint64_t *records);

/* Whether a source can be read more than once (not standard input). */
bool sb_trace_source_rereadable(const struct sb_trace_source *src);

/*
 * Whether a read of r failed because a record went back in time in an input opened with
 * one_pass, which reads again without one_pass put in time order.
 */
bool sb_trace_reader_unsorted(const struct sb_trace_reader *r);

/* Records a sorting reader holds in memory by default (64 MiB with their sort keys). */
#define SB_TRACE_SORT_RECORDS (1u << 20)

/*
 * Sort the records of in by time, stably (records of equal times keep their order), in bounded
 * memory: at most mem_records records (0: SB_TRACE_SORT_RECORDS) are held; a longer input is
 * sorted in runs written to temporary sbt files in $TMPDIR (or /tmp), unlinked at once, and
 * merged (docs/trace-format.md, "Rows out of time order"). Takes ownership of in, also on
 * failure. The first read consumes the whole input. Returns 0 or SB_ERR_NOMEM; reads can
 * fail with SB_ERR_IO (no room for the temporary files) besides the input's errors.
 */
int sb_trace_sort(struct sb_trace_reader **r, struct sb_trace_reader *in, size_t mem_records);

/* Read up to max records: the count, 0 at the end of the trace, or a negative SB_ERR_*. */
int sb_trace_read(struct sb_trace_reader *r, struct sb_trace_record *recs, size_t max);

/* The trace's description; it may grow while reading (new subpartitions, warnings). */
const struct sb_trace_info *sb_trace_reader_info(const struct sb_trace_reader *r);

void sb_trace_reader_free(struct sb_trace_reader *r);

/* Helpers for importers. */
void sb_trace_info_init(struct sb_trace_info *info, const char *source, double tick_hz,
                        const char *time_unit);
/* Index of the named subpartition, adding it if absent (SB_ERR_RANGE when the table is full). */
int sb_trace_info_subpart(struct sb_trace_info *info, const char *name, enum sb_subpart_type type,
                          uint32_t addr_unit_bytes, uint32_t block_bytes);
/* Add a warning (also logged with sb_warn); silently dropped beyond SB_TRACE_MAX_WARNINGS. */
void sb_trace_info_warn(struct sb_trace_info *info, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Add a warning without logging it (copying one raised elsewhere); duplicates are dropped. */
void sb_trace_info_add_warning(struct sb_trace_info *info, const char *msg);

/*
 * Set a provenance attribute (replacing one of the same key). Control characters in the value
 * become spaces. SB_ERR_INVAL for a key outside [A-Za-z0-9_.-]{1,31} or a value of
 * SB_TRACE_ATTR_VALUE_MAX bytes or more, SB_ERR_RANGE when the table is full.
 */
int sb_trace_info_set_attr(struct sb_trace_info *info, const char *key, const char *value);
/* The value of an attribute, or NULL. */
const char *sb_trace_info_attr(const struct sb_trace_info *info, const char *key);
/*
 * Check a capture description: SB_ERR_PARSE with what is wrong (lost more than captured, an
 * interval that ends before it starts, a burst length over 2^31), naming `what` (the file).
 */
int sb_trace_capture_check(const struct sb_trace_capture *c, const char *what);

/* Writers: the other direction of the converter. */
struct sb_trace_writer;

/*
 * Create a writer of format fmt (SB_TRACE_CSV or SB_TRACE_SBT) to path ("-": standard output).
 * info is the trace's description (clock, subpartitions, fields). SB_ERR_NOT_SUPPORTED for
 * formats that cannot be written, SB_ERR_IO, SB_ERR_NOMEM.
 */
int sb_trace_writer_open(struct sb_trace_writer **w, enum sb_trace_format fmt, const char *path,
                         const struct sb_trace_info *info);
/*
 * Write records; info is the (possibly grown) description of the trace they come from: new
 * subpartitions and warnings are written before the records that use them.
 */
int sb_trace_write(struct sb_trace_writer *w, const struct sb_trace_info *info,
                   const struct sb_trace_record *recs, size_t n);
/*
 * Write what changed in the description (new subpartitions, warnings, attributes, a new or
 * changed capture description) now, without records: a capture's final counts are known only
 * at its end. Equivalent to sb_trace_write(w, info, NULL, 0).
 */
int sb_trace_writer_update(struct sb_trace_writer *w, const struct sb_trace_info *info);
/* Finish the file (end marker, flush, close). Returns 0 or SB_ERR_IO. Frees w in any case. */
int sb_trace_writer_close(struct sb_trace_writer *w);
/* Abandon a writer after an error (closes without finishing the file). */
void sb_trace_writer_abort(struct sb_trace_writer *w);

/*
 * Convert: read everything from r and write it to path in format fmt. Returns the number of
 * records written (>= 0) or a negative SB_ERR_*.
 */
int64_t sb_trace_convert(struct sb_trace_reader *r, enum sb_trace_format fmt, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_TRACE_H */
