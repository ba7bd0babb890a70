/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_node.c: a dqlite node with the cuckoo extension built in.
**
**   cuckoo-node --id N --address HOST:PORT --dir DIR [--join HOST:PORT,...]
**               [--latency MS] [--snapshot-threshold N]
**               [--snapshot-trailing N] [--join-timeout S]
**
** dqlite (Raft-replicated SQLite) refuses load_extension() from its
** clients, so the extension is linked in (libcuckoo.a, built with
** -DSQLITE_CORE) and registered with sqlite3_auto_extension() before the
** node starts: every connection dqlite opens then has cuckoo_* and the
** cuckoo virtual table.  Every node of a cluster must run the same build.
**
** Node 1 bootstraps a new cluster made of itself (dqlite does this for id
** 1 when DIR holds no Raft state).  Any other node is given --join, the
** addresses of nodes already in the cluster: once started it asks them
** over the dqlite client protocol which node is the leader, asks the
** leader for the configuration, and unless it is already a voter there,
** asks the leader to ADD it and then to ASSIGN it the voter role.  The
** leader accepts one configuration change at a time, so a refused request
** is retried (with a fresh look-up of the leader) until --join-timeout
** seconds (default 30) have passed.  A node restarted on the DIR it used
** before finds itself a voter and changes nothing.
**
** --latency is the one-way network latency in milliseconds that dqlite
** derives its Raft timeouts from: heartbeats every 1.5 x latency, an
** election after 15 x latency without one.  The leader runs each
** statement on its event loop, so a statement that runs longer than the
** election timeout silences the heartbeats: the followers elect a new
** leader and the statement fails.  The default, 100, is measured
** (contrib/dqlite/latency.sh, docs/distributed.md): on loopback it commits
** 10^6 items into a cuckoo table in one statement and fails over in about
** 2.5 s; at 10 such a statement fails, at 20 the failover takes 0.75 s
** but 5 x 10^5 items in one statement already fail.
**
** --snapshot-threshold (default 1024) is how many Raft log entries
** trigger a snapshot, --snapshot-trailing (default 8192) how many entries
** are kept after it; dqlite requires trailing >= 4 and trailing >=
** threshold.
**
** Every connection dqlite opens also gets PRAGMA cache_spill=OFF, no
** ATTACH, and an authorizer that refuses journal_mode changes: each works
** around a libdqlite 1.11 failure (see node_connection_init()).
**
** The process ignores SIGPIPE (a write to a peer that died must be an
** error, not the end of this node) and blocks SIGTERM and SIGINT before
** dqlite starts its threads, then waits for them with sigwait() and stops
** the node cleanly.  When the node serves (joined, if asked to), it
** prints "cuckoo-node N ready at ADDRESS" on stdout.  Exit status 0 after
** a clean stop, 1 on a usage or start error, 2 if joining failed.
*/
#include <dqlite.h>
#include <sqlite3.h>

#include "cuckoo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* The parts of the dqlite client protocol (version 1) that joining uses:
** every integer little-endian, a message is an 8-byte header (body size
** in 8-byte words: uint32, type: uint8, schema: uint8, unused: uint16)
** and a body of whole words; text is NUL-terminated and zero-padded to a
** whole word. */
#define PROTO_VERSION 1
#define REQ_LEADER 0
#define REQ_ADD 12
#define REQ_ASSIGN 13
#define REQ_CLUSTER 16
#define RESP_FAILURE 0
#define RESP_SERVER 1
#define RESP_SERVERS 3
#define RESP_EMPTY 8
#define CLUSTER_FORMAT_ROLES 1 /* servers with id, address and role */
#define ROLE_VOTER 0
#define ROLE_NONE 99 /* not in the configuration (our own marker) */
#define MAX_BODY (1 << 20)

typedef struct Options Options;
struct Options {
  unsigned long long id;
  const char *zAddress;
  const char *zDir;
  const char *zJoin; /* comma-separated addresses, or NULL */
  unsigned latencyMs;
  unsigned snapThreshold;
  unsigned snapTrailing;
  unsigned joinTimeout; /* seconds */
};

/* A growable byte buffer for one message. */
typedef struct Buf Buf;
struct Buf {
  unsigned char *a;
  size_t n, nAlloc;
};

/* One connection to a node, with the last failure it reported. */
typedef struct Conn Conn;
struct Conn {
  int fd;
  char zErr[256];
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int buf_reserve(Buf *p, size_t n) {
  if (p->n + n > p->nAlloc) {
    size_t nNew = p->nAlloc ? p->nAlloc * 2 : 256;
    unsigned char *aNew;
    while (nNew < p->n + n)
      nNew *= 2;
    aNew = realloc(p->a, nNew);
    if (aNew == NULL) return -1;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  return 0;
}

static int buf_u64(Buf *p, uint64_t v) {
  int i;
  if (buf_reserve(p, 8)) return -1;
  for (i = 0; i < 8; i++)
    p->a[p->n++] = (unsigned char)(v >> (8 * i));
  return 0;
}

static int buf_text(Buf *p, const char *z) {
  size_t n = strlen(z) + 1;
  size_t nPad = (n + 7) / 8 * 8;
  if (buf_reserve(p, nPad)) return -1;
  memset(p->a + p->n, 0, nPad);
  memcpy(p->a + p->n, z, n - 1);
  p->n += nPad;
  return 0;
}

static uint64_t get_u64(const unsigned char *a) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--)
    v = (v << 8) | a[i];
  return v;
}

/* A reader over a response body; every read is bounds-checked. */
typedef struct Cursor Cursor;
struct Cursor {
  const unsigned char *a;
  size_t n, i;
};

static int cur_u64(Cursor *c, uint64_t *pV) {
  if (c->n - c->i < 8) return -1;
  *pV = get_u64(c->a + c->i);
  c->i += 8;
  return 0;
}

static int cur_text(Cursor *c, const char **pz) {
  const unsigned char *pEnd = memchr(c->a + c->i, 0, c->n - c->i);
  size_t n;
  if (pEnd == NULL) return -1;
  n = (size_t)(pEnd - (c->a + c->i)) + 1;
  *pz = (const char *)(c->a + c->i);
  c->i += (n + 7) / 8 * 8;
  if (c->i > c->n) return -1;
  return 0;
}

static int write_all(int fd, const unsigned char *a, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, a, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    a += k;
    n -= (size_t)k;
  }
  return 0;
}

static int read_all(int fd, unsigned char *a, size_t n) {
  while (n > 0) {
    ssize_t k = read(fd, a, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    a += k;
    n -= (size_t)k;
  }
  return 0;
}

/* Connect to "HOST:PORT" (an IPv4 address) with every read and write
** bounded by timeoutMs, and send the protocol version.  Returns 0 on
** success. */
static int conn_open(Conn *pConn, const char *zAddr, unsigned timeoutMs) {
  char zHost[64];
  const char *zColon = strrchr(zAddr, ':');
  struct sockaddr_in sa;
  struct timeval tv;
  unsigned char aVersion[8];
  int one = 1, i;

  pConn->fd = -1;
  pConn->zErr[0] = 0;
  if (zColon == NULL || (size_t)(zColon - zAddr) >= sizeof(zHost)) {
    snprintf(pConn->zErr, sizeof(pConn->zErr), "bad address %s", zAddr);
    return -1;
  }
  memcpy(zHost, zAddr, (size_t)(zColon - zAddr));
  zHost[zColon - zAddr] = 0;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)atoi(zColon + 1));
  if (inet_pton(AF_INET, zHost, &sa.sin_addr) != 1) {
    snprintf(pConn->zErr, sizeof(pConn->zErr),
             "%s: an IPv4 address is expected", zAddr);
    return -1;
  }
  pConn->fd = socket(AF_INET, SOCK_STREAM, 0);
  if (pConn->fd < 0) goto failed;
  tv.tv_sec = timeoutMs / 1000;
  tv.tv_usec = (long)(timeoutMs % 1000) * 1000;
  setsockopt(pConn->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(pConn->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  setsockopt(pConn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(pConn->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
    goto failed;
  }
  for (i = 0; i < 8; i++)
    aVersion[i] = (unsigned char)(PROTO_VERSION >> 8 * i);
  if (write_all(pConn->fd, aVersion, 8)) goto failed;
  return 0;

failed:
  snprintf(pConn->zErr, sizeof(pConn->zErr), "%s: %s", zAddr, strerror(errno));
  if (pConn->fd >= 0) close(pConn->fd);
  pConn->fd = -1;
  return -1;
}

static void conn_close(Conn *pConn) {
  if (pConn->fd >= 0) close(pConn->fd);
  pConn->fd = -1;
}

/* Send a request of type eType with body pBody and read the response
** into *pResp (its body; *peType its type).  A FAILURE response is turned
** into -1 with the node's message in pConn->zErr; so is a response of a
** type other than eExpect. */
static int conn_call(Conn *pConn, int eType, Buf *pBody, int eExpect,
                     Buf *pResp) {
  unsigned char aHdr[8];
  uint32_t nWord = (uint32_t)(pBody->n / 8);
  uint32_t nResp;
  int eResp, i;

  errno = 0;
  for (i = 0; i < 4; i++)
    aHdr[i] = (unsigned char)(nWord >> 8 * i);
  aHdr[4] = (unsigned char)eType;
  aHdr[5] = aHdr[6] = aHdr[7] = 0;
  if (write_all(pConn->fd, aHdr, 8) ||
      write_all(pConn->fd, pBody->a, pBody->n) ||
      read_all(pConn->fd, aHdr, 8)) {
    snprintf(pConn->zErr, sizeof(pConn->zErr), "connection: %s",
             errno ? strerror(errno) : "closed by peer");
    return -1;
  }
  nResp = (uint32_t)aHdr[0] | (uint32_t)aHdr[1] << 8 | (uint32_t)aHdr[2] << 16 |
          (uint32_t)aHdr[3] << 24;
  eResp = aHdr[4];
  if ((size_t)nResp * 8 > MAX_BODY) {
    snprintf(pConn->zErr, sizeof(pConn->zErr), "response of %u words", nResp);
    return -1;
  }
  pResp->n = 0;
  if (buf_reserve(pResp, (size_t)nResp * 8 + 1) ||
      read_all(pConn->fd, pResp->a, (size_t)nResp * 8)) {
    snprintf(pConn->zErr, sizeof(pConn->zErr), "reading a response failed");
    return -1;
  }
  pResp->n = (size_t)nResp * 8;
  if (eResp == RESP_FAILURE) {
    Cursor c = {pResp->a, pResp->n, 0};
    uint64_t code = 0;
    const char *zMsg = "";
    if (cur_u64(&c, &code) == 0) cur_text(&c, &zMsg);
    snprintf(pConn->zErr, sizeof(pConn->zErr), "error %llu: %s",
             (unsigned long long)code, zMsg);
    return -1;
  }
  if (eResp != eExpect) {
    snprintf(pConn->zErr, sizeof(pConn->zErr),
             "response of type %d where %d was expected", eResp, eExpect);
    return -1;
  }
  return 0;
}

/* Ask the node at zAddr who the leader is.  On success *pzLeader is a
** malloc()ed address (possibly "" if the node knows no leader). */
static int ask_leader(const char *zAddr, char **pzLeader, char *zErr,
                      size_t nErr) {
  Conn conn;
  Buf body = {0}, resp = {0};
  int rc = -1;
  *pzLeader = NULL;
  if (conn_open(&conn, zAddr, 5000) == 0) {
    Cursor c;
    uint64_t id;
    const char *z;
    if (buf_u64(&body, 0) == 0 &&
        conn_call(&conn, REQ_LEADER, &body, RESP_SERVER, &resp) == 0) {
      c.a = resp.a;
      c.n = resp.n;
      c.i = 0;
      if (cur_u64(&c, &id) == 0 && cur_text(&c, &z) == 0) {
        *pzLeader = strdup(z);
        rc = *pzLeader ? 0 : -1;
      } else {
        snprintf(conn.zErr, sizeof(conn.zErr), "malformed LEADER response");
      }
    }
  }
  if (rc) snprintf(zErr, nErr, "%s", conn.zErr);
  conn_close(&conn);
  free(body.a);
  free(resp.a);
  return rc;
}

/* Our role in the leader's configuration: ROLE_VOTER, another role, or
** ROLE_NONE if we are not in it. */
static int ask_role(Conn *pConn, uint64_t id, uint64_t *pRole) {
  Buf body = {0}, resp = {0};
  uint64_t n, i;
  Cursor c;
  int rc = -1;
  *pRole = ROLE_NONE;
  if (buf_u64(&body, CLUSTER_FORMAT_ROLES) == 0 &&
      conn_call(pConn, REQ_CLUSTER, &body, RESP_SERVERS, &resp) == 0) {
    c.a = resp.a;
    c.n = resp.n;
    c.i = 0;
    rc = cur_u64(&c, &n);
    for (i = 0; rc == 0 && i < n; i++) {
      uint64_t sid, role;
      const char *zA;
      rc = cur_u64(&c, &sid) || cur_text(&c, &zA) || cur_u64(&c, &role);
      if (rc == 0 && sid == id) *pRole = role;
    }
    if (rc) snprintf(pConn->zErr, sizeof(pConn->zErr), "malformed CLUSTER");
  }
  free(body.a);
  free(resp.a);
  return rc ? -1 : 0;
}

/* One attempt to make this node a voter, through the leader that one of
** the --join addresses names.  Returns 0 when it is one. */
static int join_once(const Options *pOpt, char *zErr, size_t nErr) {
  char *zList = strdup(pOpt->zJoin);
  char *zPeer, *zSave = NULL, *zLeader = NULL;
  Conn conn = {-1, ""};
  Buf body = {0}, resp = {0};
  uint64_t role;
  int rc = -1;

  if (zList == NULL) {
    snprintf(zErr, nErr, "out of memory");
    return -1;
  }
  snprintf(zErr, nErr, "no node of --join %s knows a leader", pOpt->zJoin);
  for (zPeer = strtok_r(zList, ",", &zSave); zPeer && zLeader == NULL;
       zPeer = strtok_r(NULL, ",", &zSave)) {
    if (ask_leader(zPeer, &zLeader, zErr, nErr) == 0 && zLeader[0] == 0) {
      free(zLeader);
      zLeader = NULL;
    }
  }
  free(zList);
  if (zLeader == NULL) return -1;

  if (conn_open(&conn, zLeader, 10000) == 0 &&
      ask_role(&conn, pOpt->id, &role) == 0) {
    rc = 0;
    if (role == ROLE_NONE) {
      rc = buf_u64(&body, pOpt->id) || buf_text(&body, pOpt->zAddress) ||
           conn_call(&conn, REQ_ADD, &body, RESP_EMPTY, &resp);
    }
    if (rc == 0 && role != ROLE_VOTER) {
      body.n = 0;
      rc = buf_u64(&body, pOpt->id) || buf_u64(&body, ROLE_VOTER) ||
           conn_call(&conn, REQ_ASSIGN, &body, RESP_EMPTY, &resp);
    }
  }
  if (rc) snprintf(zErr, nErr, "leader %s: %s", zLeader, conn.zErr);
  conn_close(&conn);
  free(zLeader);
  free(body.a);
  free(resp.a);
  return rc ? -1 : 0;
}

/* Retry join_once() until it succeeds or the timeout passes: the leader
** may be being elected, or busy with another node's configuration
** change. */
static int join_cluster(const Options *pOpt) {
  double tEnd = now_seconds() + pOpt->joinTimeout;
  char zErr[512];
  while (join_once(pOpt, zErr, sizeof(zErr)) != 0) {
    if (now_seconds() > tEnd) {
      fprintf(stderr, "cuckoo-node %llu: joining failed after %u s: %s\n",
              pOpt->id, pOpt->joinTimeout, zErr);
      return -1;
    }
    sleep_ms(100);
  }
  return 0;
}

/* The authorizer of every connection: refuses "PRAGMA journal_mode=X"
** for any X but WAL.  libdqlite 1.11 answers such a pragma on the leader
** by freeing a string it does not own, and the leader process dies
** ("free(): invalid pointer"); refused here, the client gets "not
** authorized" and the cluster carries on.  dqlite itself sets WAL. */
static int node_authorize(void *pArg, int eAction, const char *z1,
                          const char *z2, const char *zDb,
                          const char *zTrigger) {
  (void)pArg;
  (void)zDb;
  (void)zTrigger;
  if (eAction == SQLITE_PRAGMA && z1 &&
      sqlite3_stricmp(z1, "journal_mode") == 0 && z2 &&
      sqlite3_stricmp(z2, "wal") != 0) {
    return SQLITE_DENY;
  }
  return SQLITE_OK;
}

/* Registered with sqlite3_auto_extension() after the extension: runs on
** every connection dqlite opens, before dqlite configures it.
**  - PRAGMA cache_spill=OFF: libdqlite 1.11 fails a transaction whose
**    dirty pages outgrow SQLite's page cache (about 2 MB): SQLite spills
**    pages to the WAL before the commit, dqlite drops those frames when it
**    polls the WAL after the statement, and the commit then reads them
**    back as a short read (SQLITE_IOERR_SHORT_READ, "disk I/O error";
**    fixed in dqlite 1.13).  The database lives in memory anyway, so
**    spilling saves nothing: the cache grows instead.
**  - No ATTACH (as dqlite 1.13 does): dqlite replicates one database per
**    connection, and a file attached through its VFS fails ("disk I/O
**    error", then "database disk image is malformed"); the client gets
**    "too many attached databases - max 0".
**  - The authorizer above. */
static int node_connection_init(sqlite3 *db, char **pzErrMsg,
                                const struct sqlite3_api_routines *pApi) {
  (void)pApi;
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_set_authorizer(db, node_authorize, NULL);
  return sqlite3_exec(db, "PRAGMA cache_spill=OFF", NULL, NULL, pzErrMsg);
}

static void usage(const char *zArgv0) {
  fprintf(stderr,
          "usage: %s --id N --address HOST:PORT --dir DIR\n"
          "          [--join HOST:PORT,...] [--latency MS]\n"
          "          [--snapshot-threshold N] [--snapshot-trailing N]\n"
          "          [--join-timeout S]\n",
          zArgv0);
}

/* Parse an unsigned decimal in [lo, hi]; returns 0 on success. */
static int parse_uint(const char *zOpt, const char *z, unsigned long long lo,
                      unsigned long long hi, unsigned long long *pV) {
  char *zEnd;
  errno = 0;
  *pV = strtoull(z, &zEnd, 10);
  if (z[0] == '-' || zEnd == z || *zEnd || errno || *pV < lo || *pV > hi) {
    fprintf(stderr,
            "cuckoo-node: %s %s: an integer from %llu to %llu is "
            "expected\n",
            zOpt, z, lo, hi);
    return -1;
  }
  return 0;
}

static int parse_options(int argc, char **argv, Options *pOpt) {
  int i;
  unsigned long long v;
  memset(pOpt, 0, sizeof(*pOpt));
  pOpt->latencyMs = 100;
  pOpt->snapThreshold = 1024;
  pOpt->snapTrailing = 8192;
  pOpt->joinTimeout = 30;
  for (i = 1; i < argc; i++) {
    const char *z = argv[i];
    const char *zVal = i + 1 < argc ? argv[i + 1] : NULL;
    if (zVal == NULL) {
      fprintf(stderr, "cuckoo-node: %s needs a value\n", z);
      return -1;
    }
    i++;
    if (strcmp(z, "--id") == 0) {
      if (parse_uint(z, zVal, 1, UINT64_MAX, &v)) return -1;
      pOpt->id = v;
    } else if (strcmp(z, "--address") == 0) {
      pOpt->zAddress = zVal;
    } else if (strcmp(z, "--dir") == 0) {
      pOpt->zDir = zVal;
    } else if (strcmp(z, "--join") == 0) {
      pOpt->zJoin = zVal;
    } else if (strcmp(z, "--latency") == 0) {
      if (parse_uint(z, zVal, 1, 3600000, &v)) return -1;
      pOpt->latencyMs = (unsigned)v;
    } else if (strcmp(z, "--snapshot-threshold") == 0) {
      if (parse_uint(z, zVal, 1, UINT32_MAX, &v)) return -1;
      pOpt->snapThreshold = (unsigned)v;
    } else if (strcmp(z, "--snapshot-trailing") == 0) {
      if (parse_uint(z, zVal, 4, UINT32_MAX, &v)) return -1;
      pOpt->snapTrailing = (unsigned)v;
    } else if (strcmp(z, "--join-timeout") == 0) {
      if (parse_uint(z, zVal, 1, 3600, &v)) return -1;
      pOpt->joinTimeout = (unsigned)v;
    } else {
      fprintf(stderr, "cuckoo-node: unknown option %s\n", z);
      return -1;
    }
  }
  if (pOpt->id == 0 || pOpt->zAddress == NULL || pOpt->zDir == NULL) {
    fprintf(stderr, "cuckoo-node: --id, --address and --dir are required\n");
    return -1;
  }
  if (pOpt->snapTrailing < pOpt->snapThreshold) {
    fprintf(stderr,
            "cuckoo-node: --snapshot-trailing (%u) must be at least "
            "--snapshot-threshold (%u)\n",
            pOpt->snapTrailing, pOpt->snapThreshold);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  Options opt;
  dqlite_node *pNode = NULL;
  sigset_t stopSignals;
  int sig = 0, rc;

  if (parse_options(argc, argv, &opt)) {
    usage(argv[0]);
    return 1;
  }

  /* Before dqlite starts threads: every thread inherits this mask, so the
  ** stop signals are only ever taken by sigwait() below. */
  signal(SIGPIPE, SIG_IGN);
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, NULL);

  rc = sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  if (rc == SQLITE_OK) {
    rc = sqlite3_auto_extension((void (*)(void))node_connection_init);
  }
  if (rc != SQLITE_OK) {
    fprintf(stderr, "cuckoo-node: sqlite3_auto_extension: %s\n",
            sqlite3_errstr(rc));
    return 1;
  }

  rc = dqlite_node_create(opt.id, opt.zAddress, opt.zDir, &pNode);
  if (rc == 0) rc = dqlite_node_set_bind_address(pNode, opt.zAddress);
  if (rc == 0) rc = dqlite_node_set_network_latency_ms(pNode, opt.latencyMs);
  if (rc == 0) {
    rc = dqlite_node_set_snapshot_params(pNode, opt.snapThreshold,
                                         opt.snapTrailing);
  }
  if (rc == 0) rc = dqlite_node_start(pNode);
  if (rc != 0) {
    fprintf(stderr, "cuckoo-node %llu: starting failed: %s\n", opt.id,
            pNode ? dqlite_node_errmsg(pNode) : "out of memory");
    if (pNode) dqlite_node_destroy(pNode);
    return 1;
  }

  if (opt.zJoin && join_cluster(&opt) != 0) {
    dqlite_node_stop(pNode);
    dqlite_node_destroy(pNode);
    return 2;
  }
  printf("cuckoo-node %llu ready at %s\n", opt.id, opt.zAddress);
  fflush(stdout);

  sigwait(&stopSignals, &sig);
  rc = dqlite_node_stop(pNode);
  dqlite_node_destroy(pNode);
  return rc == 0 ? 0 : 1;
}
