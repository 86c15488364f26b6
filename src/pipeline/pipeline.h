/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pipeline of one interface: the entry program (parse once), the stage
 * slots (fp_stages), the parse scratch and the control word (fp_ctl), the
 * pin directory ROOT/IFACE/, the attachment, the ABI check and the locks.
 * Stages plug into it through the stage table (stage_table.c): a stage is
 * one entry there and one folder src/<stage>/ that loads its own object
 * against the pipeline's maps (fp_pipeline__reuse_maps) and hands its
 * programs and pins to fp_pipeline__add_stage.
 *
 * Pins:  ROOT/IFACE/fp_entry fp_stages fp_scratch fp_ctl fp_meta   (pipeline)
 *        ROOT/IFACE/<stage>/...                  (each stage's own, by name)
 *        ROOT/shared/<NAME>/...   maps several interfaces share (a filter
 *                                 --share; later the bridge's port map):
 *                                 made by the first member's load, removed
 *                                 by the unload of the last member
 *
 * Functions return 0 or a negative errno; the ones taking `err` also leave a
 * message there saying what failed and what to do. Nothing here prints.
 */
#ifndef FP_PIPELINE_PIPELINE_H
#define FP_PIPELINE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <fastpath/abi.h>

struct bpf_object;
struct fp_pipeline;

/* ---- the stage table ---------------------------------------------------- */

/* What an unload did. */
#define FP_UNLOAD_MAX_PINS 64
struct fp_unload_report {
	bool detached;               /* fastpath's program was detached ... */
	char ifname[16];             /* ... from this interface (its name now) */
	__u32 ifindex, prog_id;
	__u32 xdp_flags;             /* the mode it ran in (XDP_FLAGS_*_MODE) */
	__u32 other_id;              /* another program attached there, left alone (0: none) */
	unsigned n_pins;             /* pins removed */
	char share[16];              /* the interface's filter share ("": none) */
	char share_removed[16];      /* a share left without members, removed ("": none) */
	char pins[FP_UNLOAD_MAX_PINS][64]; /* their names, stage/name (the first ones) */
	bool stage_only;             /* a stage was removed; its pipeline stays attached */
};

/* A stage's packets for `pipeline show`: in, and out by XDP action
 * (XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT). */
struct fp_stage_counts {
	bool have;             /* the stage counts (false: shown as "-") */
	__u64 in;
	__u64 out[5];
};

struct fp_stage_ops {
	const char *name;      /* CLI object and pin subdirectory: ROOT/IFACE/<name>/ */
	unsigned slot;         /* enum fp_stage: its place in the chain */
	bool tap;              /* also owns FP_SLOT_TAP (the dump): enabled means
				* the tap is filled; the chain slot is filled only
				* while the stage asks for it (dump --match) */
	__u32 abi;             /* the stage's ABI (FP_<STAGE>_ABI) */
	const char *meta_pin;  /* pin of its meta map, whose first __u32 is the ABI */
	const char *prog_pin;  /* pin of the slot's program */
	const char *tap_pin;   /* pin of the tap's program (tap stages) */
	const char *fused_pin; /* pin of its fused entry (parse + stage; NULL: none) */
	const char *load_cmd;  /* how a user loads it, a format whose one %s is
				* the interface ("fastpath filter load %s") */
	bool pipeline_loads;   /* loaded with every pipeline (the dump) */
	/* Loads the stage on pl with its defaults (pipeline_loads stages and
	 * tests); NULL: only its own CLI loads it. */
	int (*load)(struct fp_pipeline *pl, char *err, size_t errlen);
	/* Reads its counters from its pin directory (NULL: none). */
	int (*counters)(const char *dir, struct fp_stage_counts *c);
	/* Under the root lock, before its pins in dir are removed, and after
	 * (NULL: nothing): the filter notes its share, then collects shares
	 * left without members. */
	void (*unloading)(const char *dir, struct fp_unload_report *r);
	void (*unloaded)(const char *root, struct fp_unload_report *r);
};

/* The built-in stages in slot order, NULL-terminated; tests add theirs. */
const struct fp_stage_ops *const *fp_stage_table(void);
/* Adds a stage (tests' mark stage) to the table; -EEXIST if its slot or
 * name is taken, -EINVAL if the slot is out of the chain. */
int fp_stage_table__add(const struct fp_stage_ops *ops);
const struct fp_stage_ops *fp_stage_by_name(const char *name);
const struct fp_stage_ops *fp_stage_by_slot(unsigned slot);
/* Checks the table: slots within the chain and used once, names unique
 * and of [a-z0-9_], ordered by slot. 0 or -EINVAL with err set. */
int fp_stage_table__check(char *err, size_t errlen);

/* ---- the pipeline ------------------------------------------------------- */

struct fp_pipeline_opts {
	const char *bpffs;     /* pin root; NULL: $FASTPATH_BPFFS or /sys/fs/bpf/fastpath */
	bool skb_mode;         /* generic XDP instead of native */
	bool auto_load;        /* loaded by a stage's load (FP_META_AUTO) */
};

/* The pin root in effect for an optional --bpffs value. */
const char *fp_bpffs_root(const char *opt);

/*
 * Loads the entry and every pipeline_loads stage, pins them under
 * ROOT/ifname and attaches fp_entry (XDP_FLAGS_UPDATE_IF_NOEXIST: another
 * program is never replaced; the error names it). Under the root lock.
 * -EEXIST when a pipeline is there already (err says so).
 */
int fp_pipeline__load(const char *ifname, const struct fp_pipeline_opts *o,
		      struct fp_pipeline **out, char *err, size_t errlen);
/* Opens the pinned pipeline; -ENOENT (err: the command that loads it) when
 * there is none, -EPROTO when its pins are of another ABI (err: the exact
 * command that reloads it). */
int fp_pipeline__open(const char *ifname, const char *bpffs, struct fp_pipeline **out,
		      char *err, size_t errlen);
/* Opens it, or loads it (auto_load) when there is none: what a stage's
 * load does. *created tells which. */
int fp_pipeline__open_or_load(const char *ifname, const struct fp_pipeline_opts *o,
			      struct fp_pipeline **out, bool *created, char *err, size_t errlen);
/* A pipeline of its own for BPF_PROG_TEST_RUN: nothing pinned or attached,
 * the pipeline_loads stages loaded into it. */
int fp_pipeline__open_test(struct fp_pipeline **out, char *err, size_t errlen);
void fp_pipeline__close(struct fp_pipeline *pl);

/*
 * Detaches the pipeline (by the ifindex and program id pinned at load: a
 * renamed interface is found) and removes every stage's pins and its own,
 * under the root lock. force: also from incomplete pins or none (detaches
 * only programs named fp_entry*). 1: done, but another program is attached
 * to the interface and stays (err says which). r may be NULL.
 */
int fp_pipeline__unload(const char *ifname, const char *bpffs, bool force,
			struct fp_unload_report *r, char *err, size_t errlen);

/* Takes the pin root's lock for a sequence of changes (a stage's load that
 * must know a share before the verifier); add_stage, remove_stage and
 * set_enabled then do not take it again. */
int fp_pipeline__lock(struct fp_pipeline *pl, char *err, size_t errlen);
void fp_pipeline__unlock(struct fp_pipeline *pl);

/* Accessors. */
const char *fp_pipeline__ifname(const struct fp_pipeline *pl);
const char *fp_pipeline__root(const struct fp_pipeline *pl);
bool fp_pipeline__is_test(const struct fp_pipeline *pl);
int fp_pipeline__meta(const struct fp_pipeline *pl, struct fp_meta *meta);
int fp_pipeline__stages_fd(const struct fp_pipeline *pl);
int fp_pipeline__ctl_fd(const struct fp_pipeline *pl);
/* The plain entry program (for test runs through the whole chain). */
int fp_pipeline__entry_fd(const struct fp_pipeline *pl);
/* The program attached now: the plain entry or a stage's fused entry. */
int fp_pipeline__attached_fd(const struct fp_pipeline *pl);
/* ROOT/IFACE/<stage> (test pipelines: "" and -ENOENT). */
int fp_pipeline__stage_dir(const struct fp_pipeline *pl, const struct fp_stage_ops *s,
			   char *dir, size_t len);

/* Hands fp_stages, fp_scratch and fp_ctl to a stage's object before its
 * load (bpf_map__reuse_fd); a map the object does not have is skipped. */
int fp_pipeline__reuse_maps(const struct fp_pipeline *pl, struct bpf_object *obj);

/* ---- stages on a pipeline ----------------------------------------------- */

struct fp_stage_pin {
	const char *name;      /* pin name in the stage's directory */
	int fd;                /* a program or a map */
};

/*
 * Plugs a loaded stage in, under the root lock: pins pins[] under
 * ROOT/IFACE/<name>/ (test pipelines: nothing), fills its slot (and the
 * tap) and enables it, and attaches its fused entry if it comes before
 * the one attached (an atomic replace: the interface never runs without a
 * program). prog_fd: the slot's program; tap_fd, fused_fd: -1 if none.
 * -EEXIST (err says so) when the stage is there already.
 */
int fp_pipeline__add_stage(struct fp_pipeline *pl, const struct fp_stage_ops *s,
			   int prog_fd, int tap_fd, int fused_fd,
			   const struct fp_stage_pin *pins, int n_pins, char *err, size_t errlen);
/* Removes a stage: disables it, attaches the next best entry if its fused
 * entry was attached, removes its pins; when the pipeline was loaded by a
 * stage's load (FP_META_AUTO) and no chain stage is left, unloads the
 * pipeline too (*pipeline_gone). Under the root lock. */
int fp_pipeline__remove_stage(const char *ifname, const char *bpffs,
			      const struct fp_stage_ops *s, bool *pipeline_gone,
			      struct fp_unload_report *r, char *err, size_t errlen);
/* After a stage's failed load: unloads the pipeline if a stage's load made
 * it (FP_META_AUTO) and no chain stage is on it, under the root lock (a
 * concurrent load that won keeps it). */
int fp_pipeline__unload_if_empty(const char *ifname, const char *bpffs);
/* Whether the stage is loaded on pl (its pins are there, or in a test
 * pipeline its slot is filled). */
bool fp_pipeline__has_stage(const struct fp_pipeline *pl, const struct fp_stage_ops *s);
/* A test pipeline has no pins to keep a stage's loaded object alive: it
 * keeps the object (destroy(obj) at close) under the stage's name. */
int fp_pipeline__keep(struct fp_pipeline *pl, const char *name, void *obj,
		      void (*destroy)(void *));
void *fp_pipeline__kept(const struct fp_pipeline *pl, const char *name);
/* The first word of a pinned meta map, its ABI, whatever its value size
 * (the pipeline's and every stage's meta start with it). */
int fp_read_abi(int map_fd, __u32 *abi);
/* Opens a pin of the stage's directory; -ENOENT if absent. */
int fp_pipeline__stage_pin(const struct fp_pipeline *pl, const struct fp_stage_ops *s,
			   const char *name, int *fd);

/*
 * Enables or disables a loaded stage under the root lock: enable fills the
 * slot (the tap, for the dump) from its pinned program and then sets its
 * bit in fp_ctl.enabled; disable clears the bit and then empties the slot
 * (a tap stage: the tap only; its chain slot stays the running dump's).
 * Packets in flight see the stage or not, never half of it; nothing is
 * detached. -ENOENT when the stage is not loaded.
 */
int fp_pipeline__set_enabled(struct fp_pipeline *pl, const struct fp_stage_ops *s,
			     bool on, char *err, size_t errlen);
bool fp_pipeline__enabled(const struct fp_pipeline *pl, const struct fp_stage_ops *s);
/* Fills or empties one chain slot and its fp_ctl bit for a stage that
 * switches it itself (the dump's slot 0 during `dump --match`), in that
 * order; no lock. */
int fp_pipeline__fill_slot(struct fp_pipeline *pl, unsigned slot, int prog_fd);
int fp_pipeline__empty_slot(struct fp_pipeline *pl, unsigned slot);

/* fp_ctl.dump (FP_CTL_DUMP_*): the dump's own field, written alone. */
void fp_pipeline__set_dump(struct fp_pipeline *pl, __u32 flags);
__u32 fp_pipeline__dump_flags(const struct fp_pipeline *pl);

/* For `pipeline show` and `status`. */
struct fp_slot_info {
	const struct fp_stage_ops *stage; /* NULL: no stage of the table here */
	bool loaded, enabled;
	__u32 prog_id;                    /* the program in the slot (0: empty) */
	__u32 abi;                        /* the pinned stage ABI */
	bool abi_ok;
	struct fp_stage_counts counts;
};
struct fp_pipeline_info {
	struct fp_meta meta;
	char ifname[16];                  /* the interface's name now */
	__u32 entry_id;                   /* the plain entry's program id */
	__u32 attached_id;                /* the program attached now (0: none) */
	bool attached;                    /* it is one of ours */
	const char *attached_stage;       /* the stage whose fused entry it is (NULL: plain) */
	struct fp_slot_info slot[FP_STAGE_CHAIN];
};
int fp_pipeline__info(const struct fp_pipeline *pl, struct fp_pipeline_info *info);

/* Every interface with a pipeline under root (names into names[max]);
 * returns how many (may exceed max). */
int fp_pipeline__list(const char *root, char (*names)[64], int max);

#endif
