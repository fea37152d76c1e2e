/*
 * SQLite's WAL checkpoints, beside the runs rather than inside them.
 *
 * By default the connection that commits past 1000 frames of WAL copies them into the
 * database there and then, with two fdatasync(), before its commit returns. A run's row
 * and values are about 9 frames, so a comparison of /bin/true stopped every ~110 runs for
 * 2-3 ms while revperf stored and did not submit the next run (bench/RESULTS.md, "Spawner
 * path": 5-13 such gaps per 1000 runs, 14-30 ms in all). Here a thread with a second
 * connection does those checkpoints, PASSIVE (it never waits for a reader or the writer,
 * and nobody waits for it), so that storing a run is only the commit.
 *
 * The WAL starts again from its beginning only when a writer begins while every frame is
 * in the database. The thread therefore checkpoints again, at once, what the writer added
 * during its last checkpoint, a few times, until it has copied all: between runs of
 * /bin/true that takes two or three rounds. A writer that never pauses (storing without
 * runs between) outruns it: then the committing connection copies the few frames the
 * thread's rounds left (at most CKPT_REST_FRAMES), so that the WAL starts again. Should
 * the thread not keep up at all, the committing connection checkpoints itself past
 * CKPT_INLINE_FRAMES, as SQLite's default would: the WAL stays bounded whatever happens.
 * Without a thread (it could not be started, or its connection not opened), SQLite's own
 * automatic checkpoint is kept.
 */
#include "store/db_sqlite.h"
#include "store/store_impl.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/common.h"

/* The frames of WAL at which the thread is asked to checkpoint: SQLite's default. */
#define CKPT_FRAMES 1000
/* The frames at which the committing connection checkpoints itself (about 40 MB). */
#define CKPT_INLINE_FRAMES 10000
/* Checkpoints in a row while the writer keeps adding frames, before waiting to be asked. */
#define CKPT_ROUNDS 8
/* Frames left after the thread's rounds that the committing connection copies itself. */
#define CKPT_REST_FRAMES 200

struct store_checkpointer {
	char *path;	  /* the database file (the store's path) */
	sqlite3 *conn;	  /* the thread's own connection, opened by the thread */
	pthread_t thread;
	bool started;	  /* the thread exists (join it) */
	bool failed;	  /* it could not start or open: SQLite's automatic checkpoint again */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool wanted;	  /* under lock: a commit found CKPT_FRAMES or more */
	bool busy;	  /* under lock: the thread is checkpointing */
	int rest;	  /* under lock: frames its last rounds left (the writer went on); -1 none */
	bool stop;	  /* under lock: store_close() */
};

static void *checkpointer_main(void *arg)
{
	struct store_checkpointer *ck = arg;
	int rc = sqlite3_open_v2(ck->path, &ck->conn, SQLITE_OPEN_READWRITE, NULL), rest;

	/* The checkpoint's syncs as the store's own connection has them. */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(ck->conn, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
	pthread_mutex_lock(&ck->lock);
	if (rc != SQLITE_OK)
		ck->failed = true; /* read by the hook, which then checkpoints as SQLite does */
	while (!ck->failed) {
		while (!ck->wanted && !ck->stop)
			pthread_cond_wait(&ck->wake, &ck->lock);
		if (ck->stop)
			break;
		ck->wanted = false;
		ck->busy = true;
		pthread_mutex_unlock(&ck->lock);
		rest = -1;
		for (int round = 0, seen = 0; round < CKPT_ROUNDS; round++) {
			int log = 0, copied = 0;
			if (sqlite3_wal_checkpoint_v2(ck->conn, NULL, SQLITE_CHECKPOINT_PASSIVE,
						      &log, &copied) != SQLITE_OK) {
				rest = -1;
				break;
			}
			/* log is the WAL as this round began: what the writer added during the
			 * round is for the next one, and none added means all is copied. */
			rest = log - seen;
			if (copied < log)
				rest = log - copied;
			else if (rest == 0)
				break;
			seen = log;
		}
		pthread_mutex_lock(&ck->lock);
		ck->rest = rest;
		ck->busy = false;
	}
	pthread_mutex_unlock(&ck->lock);
	return NULL;
}

/* Starts the thread with every signal blocked: the user's interrupt stays revperf's. */
static void checkpointer_start(struct store_checkpointer *ck)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ck->started = !pthread_create(&ck->thread, NULL, checkpointer_main, ck);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ck->started)
		ck->failed = true;
}

/*
 * After each commit of the store's connection (sqlite3_wal_hook), with the frames now in
 * the WAL: asks the thread for a checkpoint from CKPT_FRAMES on, and checkpoints here, as
 * SQLite's automatic checkpoint does, when there is no thread or it fell far behind.
 */
static int wal_committed(void *arg, sqlite3 *conn, const char *schema, int frames)
{
	struct store_checkpointer *ck = arg;
	bool inline_ckpt;

	if (frames < CKPT_FRAMES)
		return SQLITE_OK;
	if (!ck->started && !ck->failed)
		checkpointer_start(ck);
	pthread_mutex_lock(&ck->lock);
	inline_ckpt = ck->failed || frames >= CKPT_INLINE_FRAMES ||
		      (!ck->busy && ck->rest > 0 && ck->rest <= CKPT_REST_FRAMES);
	if (!inline_ckpt && !ck->busy) {
		ck->wanted = true;
		pthread_cond_signal(&ck->wake);
	}
	ck->rest = -1;
	pthread_mutex_unlock(&ck->lock);
	if (inline_ckpt)
		sqlite3_wal_checkpoint_v2(conn, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

void store_checkpointer_install(struct store *st)
{
	struct store_checkpointer *ck = xcalloc(1, sizeof(*ck));
	ck->path = xstrdup(st->path);
	ck->rest = -1;
	pthread_mutex_init(&ck->lock, NULL);
	pthread_cond_init(&ck->wake, NULL);
	st->checkpointer = ck;
	/* Replaces SQLite's automatic checkpoint, which is a WAL hook too. */
	sqlite3_wal_hook(db_sqlite_handle(st->db), wal_committed, ck);
}

void store_checkpointer_remove(struct store *st)
{
	struct store_checkpointer *ck = st->checkpointer;
	if (!ck)
		return;
	sqlite3_wal_hook(db_sqlite_handle(st->db), NULL, NULL);
	if (ck->started) {
		pthread_mutex_lock(&ck->lock);
		ck->stop = true;
		pthread_cond_signal(&ck->wake);
		pthread_mutex_unlock(&ck->lock);
		pthread_join(ck->thread, NULL);
	}
	/* Before the store's own connection: the last to close checkpoints and removes the
	 * WAL, and that should be the store's, as without the thread. */
	sqlite3_close(ck->conn);
	pthread_cond_destroy(&ck->wake);
	pthread_mutex_destroy(&ck->lock);
	free(ck->path);
	free(ck);
	st->checkpointer = NULL;
}
