// live-client: holds many Server-Sent Events streams of `tabula serve` open on 127.0.0.1
// and measures how long a change takes to reach them, for Scripts/bench-live. One thread,
// epoll, non-blocking sockets; it decodes the chunked bodies and the event stream itself,
// so that what it measures is the server, not a client library.
//
//   live-client idle    PORT STREAMS SESSIONS SECONDS
//       creates SESSIONS sessions, prints "sessions" and waits for a line on its input (the
//       caller measures the server meanwhile); opens STREAMS streams over them, prints
//       "ready" once each has its screen, then reads for SECONDS (heartbeats only) and
//       prints what it received.
//   live-client fanout  PORT STREAMS ROUNDS [EVENT_PORT]
//       STREAMS streams of one new session; ROUNDS times, a switch event (sent to
//       EVENT_PORT, default PORT: another instance) and the time from its answer to the
//       change set at each stream: p50/p99 of the last stream's, and of every stream's.
//   live-client load    PORT STREAMS SESSIONS RATE SECONDS
//       STREAMS streams over SESSIONS new sessions ("sessions", a line in, "ready" as for
//       idle) while RATE switch events a second arrive (at most one in flight per session,
//       from 16 connections), for SECONDS: p50/p99 of the time from each event's answer to
//       its change set at each stream.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "live-client: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static int connect_to(int to_port, int nonblocking) {
    int fd = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0) die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)to_port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0 && errno != EINPROGRESS) die("connect");
    return fd;
}

static void send_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t sent = send(fd, text, length, MSG_NOSIGNAL);
        if (sent < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (sent <= 0) die("send");
        text += sent;
        length -= (size_t)sent;
    }
}

// A response with Content-Length, read whole on a blocking connection; returns its body
// (static buffer) and sets *status.
static char *blocking_response(int fd, int *status) {
    static char buffer[65536];
    size_t used = 0;
    for (;;) {
        ssize_t got = recv(fd, buffer + used, sizeof buffer - 1 - used, 0);
        if (got <= 0) die("recv");
        used += (size_t)got;
        buffer[used] = 0;
        char *end = strstr(buffer, "\r\n\r\n");
        if (!end) continue;
        char *length = strcasestr(buffer, "content-length:");
        size_t body = length ? strtoul(length + 15, NULL, 10) : 0;
        if (used < (size_t)(end + 4 - buffer) + body) continue;
        *status = atoi(buffer + 9);
        return end + 4;
    }
}

static char **new_sessions(int count) {
    char **tokens = calloc((size_t)count, sizeof *tokens);
    int fd = connect_to(port, 0);
    const char *request = "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n";
    for (int index = 0; index < count; index++) {
        send_all(fd, request, strlen(request));
        int status;
        char *body = blocking_response(fd, &status);
        char *token = strstr(body, "\"session\":\"");
        if (status != 201 || !token) die("POST /v1/sessions");
        token += 11;
        tokens[index] = strndup(token, strcspn(token, "\""));
    }
    close(fd);
    return tokens;
}

static int switch_request(char *out, size_t size, const char *token, int on) {
    const char *body = on ? "{\"row\":\"bluetooth\",\"isOn\":true}" : "{\"row\":\"bluetooth\",\"isOn\":false}";
    return snprintf(out, size,
        "POST /v1/screens/settings/switch HTTP/1.1\r\nHost: x\r\nX-Session: %s\r\nContent-Type: application/json\r\n"
        "Content-Length: %zu\r\n\r\n%s", token, strlen(body), body);
}

// ---- streams: chunked decoding, then the event stream, line by line

enum { HEAD, SIZE, DATA, DATA_END, DONE };

typedef struct {
    int fd;
    int session;
    int state;
    long remaining;      // bytes left in the chunk (DATA) or of its CRLF (DATA_END)
    char head[4096];     // the response head, then a chunk-size line
    size_t head_used;
    char line[8192];     // the current event-stream line
    size_t line_used;
    char event[32];
    long id_revision;    // the revision in the current event's id
    int ready;           // got its screen
    long revision;       // the newest revision it got
    long heartbeats;
} Stream;

typedef void (*OnEvent)(Stream *stream, const char *event, long revision);

static void end_line(Stream *s, OnEvent on_event) {
    s->line[s->line_used] = 0;
    if (s->line_used == 0) {
        if (s->event[0]) on_event(s, s->event, s->id_revision);
        s->event[0] = 0;
    } else if (s->line[0] == ':') {
        s->heartbeats++;
    } else if (!strncmp(s->line, "event: ", 7)) {
        snprintf(s->event, sizeof s->event, "%s", s->line + 7);
    } else if (!strncmp(s->line, "id: ", 4)) {
        char *colon = strrchr(s->line, ':');
        s->id_revision = colon ? strtol(colon + 1, NULL, 10) : -1;
    }
    s->line_used = 0;
}

static void body_bytes(Stream *s, const char *bytes, size_t count, OnEvent on_event) {
    for (size_t index = 0; index < count; index++) {
        if (bytes[index] == '\n') end_line(s, on_event);
        else if (s->line_used < sizeof s->line - 1) s->line[s->line_used++] = bytes[index];
    }
}

// Feeds received bytes through the HTTP framing into the event stream.
static void received(Stream *s, const char *bytes, size_t count, OnEvent on_event) {
    size_t at = 0;
    while (at < count && s->state != DONE) {
        if (s->state == HEAD || s->state == SIZE) {
            s->head[s->head_used++] = bytes[at++];
            s->head[s->head_used] = 0;
            if (s->head_used >= sizeof s->head - 1) die("response head too long");
            if (s->state == HEAD && s->head_used >= 4 && !strcmp(s->head + s->head_used - 4, "\r\n\r\n")) {
                if (strncmp(s->head + 9, "200", 3)) {
                    fprintf(stderr, "live-client: a stream was answered %.3s\n", s->head + 9);
                    exit(1);
                }
                s->state = SIZE;
                s->head_used = 0;
            } else if (s->state == SIZE && s->head_used >= 2 && !strcmp(s->head + s->head_used - 2, "\r\n")) {
                long size = strtol(s->head, NULL, 16);
                s->head_used = 0;
                if (size == 0) s->state = DONE;
                else {
                    s->state = DATA;
                    s->remaining = size;
                }
            }
        } else if (s->state == DATA) {
            size_t take = count - at < (size_t)s->remaining ? count - at : (size_t)s->remaining;
            body_bytes(s, bytes + at, take, on_event);
            at += take;
            s->remaining -= (long)take;
            if (s->remaining == 0) {
                s->state = DATA_END;
                s->remaining = 2;
            }
        } else {  // DATA_END: the chunk's CRLF
            at++;
            if (--s->remaining == 0) s->state = SIZE;
        }
    }
}

static int epoll_fd;
static Stream *streams;
static int stream_count;
static int ready_count;

static void open_streams(int count, char **tokens, int session_count) {
    streams = calloc((size_t)count, sizeof *streams);
    stream_count = count;
    epoll_fd = epoll_create1(0);
    char request[512];
    for (int index = 0; index < count; index++) {
        Stream *s = &streams[index];
        s->session = index % session_count;
        s->revision = -1;
        s->fd = connect_to(port, 0);
        int length = snprintf(request, sizeof request,
            "GET /v1/screens/settings/stream HTTP/1.1\r\nHost: x\r\nX-Session: %s\r\n\r\n", tokens[s->session]);
        send_all(s->fd, request, (size_t)length);
        struct epoll_event watch = {.events = EPOLLIN, .data.ptr = s};
        if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, s->fd, &watch) < 0) die("epoll_ctl");
    }
}

// Extra descriptors the loop also watches (event connections), with their handler.
typedef void (*OnReadable)(int fd, void *context);
typedef struct {
    int fd;
    OnReadable handler;
    void *context;
} Watched;

// Reads whatever is ready, up to `timeout_ms`; returns the number of ready descriptors.
static int pump(int timeout_ms, OnEvent on_event) {
    struct epoll_event ready[256];
    int count = epoll_wait(epoll_fd, ready, 256, timeout_ms);
    if (count < 0 && errno != EINTR) die("epoll_wait");
    static char buffer[65536];
    for (int index = 0; index < count; index++) {
        if (ready[index].data.u64 & 1) {  // a Watched (tagged pointer)
            Watched *w = (Watched *)(uintptr_t)(ready[index].data.u64 & ~(uint64_t)1);
            w->handler(w->fd, w->context);
            continue;
        }
        Stream *s = ready[index].data.ptr;
        for (;;) {
            ssize_t got = recv(s->fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (got > 0) {
                received(s, buffer, (size_t)got, on_event);
                continue;
            }
            if (got < 0 && (errno == EAGAIN || errno == EINTR)) break;
            fprintf(stderr, "live-client: a stream closed\n");
            exit(1);
        }
    }
    return count;
}

static void watch(Watched *w) {
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)(uintptr_t)w | 1};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, w->fd, &event) < 0) die("epoll_ctl");
}

static void on_opening(Stream *s, const char *event, long revision) {
    if (!strcmp(event, "screen") && !s->ready) {
        s->ready = 1;
        s->revision = revision;
        ready_count++;
    }
}

static void wait_until_ready(void) {
    int64_t deadline = now_ns() + 120 * (int64_t)1000000000;
    while (ready_count < stream_count) {
        pump(100, on_opening);
        if (now_ns() > deadline) {
            fprintf(stderr, "live-client: only %d of %d streams got their screen\n", ready_count, stream_count);
            exit(1);
        }
    }
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double percentile_ms(int64_t *values, long count, double p) {
    if (count == 0) return 0;
    qsort(values, (size_t)count, sizeof *values, compare);
    long index = (long)(p * (double)(count - 1) + 0.5);
    return (double)values[index] / 1e6;
}

// ---- idle

// Says "sessions", waits for the caller's line, opens the streams and says "ready" once
// each has its screen.
static void open_when_told(int count, char **tokens, int sessions) {
    printf("sessions\n");
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) die("reading the go-ahead");
    open_streams(count, tokens, sessions);
    wait_until_ready();
    printf("ready\n");
    fflush(stdout);
}

static int run_idle(int count, int sessions, int seconds) {
    char **tokens = new_sessions(sessions);
    open_when_told(count, tokens, sessions);
    int64_t end = now_ns() + (int64_t)seconds * 1000000000;
    while (now_ns() < end) pump(200, on_opening);
    long heartbeats = 0;
    for (int index = 0; index < count; index++) heartbeats += streams[index].heartbeats;
    printf("streams %d heartbeats %ld\n", count, heartbeats);
    return 0;
}

// ---- fanout

static long fanout_target;
static int64_t fanout_answered;
static int64_t *fanout_latencies;
static long fanout_latency_count;
static int fanout_arrived;

static void on_fanout(Stream *s, const char *event, long revision) {
    if (strcmp(event, "changes") || revision < fanout_target || s->revision >= fanout_target) return;
    s->revision = revision;
    fanout_latencies[fanout_latency_count++] = now_ns() - fanout_answered;
    fanout_arrived++;
}

static int run_fanout(int count, int rounds, int event_port) {
    char **tokens = new_sessions(1);
    open_streams(count, tokens, 1);
    wait_until_ready();
    int events = connect_to(event_port, 0);
    int64_t *last = calloc((size_t)rounds, sizeof *last);
    fanout_latencies = calloc((size_t)rounds * (size_t)count, sizeof *fanout_latencies);
    char request[1024];
    for (int round = 1; round <= rounds; round++) {
        int length = switch_request(request, sizeof request, tokens[0], round % 2);
        send_all(events, request, (size_t)length);
        int status;
        char *body = blocking_response(events, &status);
        fanout_answered = now_ns();
        char *to = strstr(body, "\"toRevision\":");
        if (status != 200 || !to) die("switch event");
        fanout_target = strtol(to + 13, NULL, 10);
        fanout_arrived = 0;
        int64_t deadline = fanout_answered + 10 * (int64_t)1000000000;
        long first = fanout_latency_count;
        while (fanout_arrived < count) {
            pump(50, on_fanout);
            if (now_ns() > deadline) {
                fprintf(stderr, "live-client: round %d: %d of %d streams got the change\n", round, fanout_arrived, count);
                exit(1);
            }
        }
        int64_t slowest = 0;
        for (long index = first; index < fanout_latency_count; index++)
            if (fanout_latencies[index] > slowest) slowest = fanout_latencies[index];
        last[round - 1] = slowest;
        usleep(20000);
    }
    printf("fanout streams %d rounds %d last_p50_ms %.2f last_p99_ms %.2f each_p50_ms %.2f each_p99_ms %.2f\n", count, rounds,
        percentile_ms(last, rounds, 0.5), percentile_ms(last, rounds, 0.99), percentile_ms(fanout_latencies, fanout_latency_count, 0.5),
        percentile_ms(fanout_latencies, fanout_latency_count, 0.99));
    return 0;
}

// ---- load

#define REVISIONS 64
typedef struct {
    int in_flight;
    int on;
    long answered;                   // newest revision whose answer came
    int64_t answered_at[REVISIONS];  // answer times by revision
} Session;

typedef struct {
    Watched watched;
    int busy;
    int session;
    char buffer[8192];
    size_t used;
} EventConnection;

static Session *sessions_state;
static char **load_tokens;
static int64_t *load_latencies;
static long load_latency_count, load_latency_capacity;
static long load_early;
static long events_answered, events_failed;

static void record_latency(int64_t value) {
    if (load_latency_count == load_latency_capacity) {
        load_latency_capacity = load_latency_capacity ? load_latency_capacity * 2 : 1 << 20;
        load_latencies = realloc(load_latencies, (size_t)load_latency_capacity * sizeof *load_latencies);
    }
    load_latencies[load_latency_count++] = value < 0 ? 0 : value;
}

static void on_load(Stream *s, const char *event, long revision) {
    if (!strcmp(event, "screen")) {
        on_opening(s, event, revision);
        return;
    }
    if (strcmp(event, "changes")) return;
    s->revision = revision;
    Session *session = &sessions_state[s->session];
    // A change set read before its event's answer: the answer came as the change did.
    if (revision > session->answered) {
        load_early++;
        record_latency(0);
        return;
    }
    if (session->answered - revision >= REVISIONS) return;
    record_latency(now_ns() - session->answered_at[revision % REVISIONS]);
}

static void on_event_answer(int fd, void *context) {
    EventConnection *c = context;
    for (;;) {
        ssize_t got = recv(fd, c->buffer + c->used, sizeof c->buffer - 1 - c->used, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (got <= 0) die("event connection");
        c->used += (size_t)got;
        c->buffer[c->used] = 0;
        char *end = strstr(c->buffer, "\r\n\r\n");
        if (!end) continue;
        char *length = strcasestr(c->buffer, "content-length:");
        size_t body = length ? strtoul(length + 15, NULL, 10) : 0;
        size_t whole = (size_t)(end + 4 - c->buffer) + body;
        if (c->used < whole) continue;
        Session *session = &sessions_state[c->session];
        char *to = strstr(end + 4, "\"toRevision\":");
        if (atoi(c->buffer + 9) == 200 && to) {
            long revision = strtol(to + 13, NULL, 10);
            session->answered_at[revision % REVISIONS] = now_ns();
            if (revision > session->answered) session->answered = revision;
            events_answered++;
        } else {
            events_failed++;
        }
        session->in_flight = 0;
        c->busy = 0;
        memmove(c->buffer, c->buffer + whole, c->used - whole);
        c->used -= whole;
        return;
    }
}

static int run_load(int count, int session_count, int rate, int seconds) {
    load_tokens = new_sessions(session_count);
    sessions_state = calloc((size_t)session_count, sizeof *sessions_state);
    open_when_told(count, load_tokens, session_count);
    enum { CONNECTIONS = 16 };
    EventConnection *connections = calloc(CONNECTIONS, sizeof *connections);
    for (int index = 0; index < CONNECTIONS; index++) {
        connections[index].watched = (Watched){.fd = connect_to(port, 0), .handler = on_event_answer, .context = &connections[index]};
        watch(&connections[index].watched);
    }
    char request[1024];
    int64_t start = now_ns(), end = start + (int64_t)seconds * 1000000000;
    long sent = 0, skipped = 0;
    int next_session = 0;
    while (now_ns() < end) {
        long due = (long)((double)(now_ns() - start) * rate / 1e9);
        while (sent + skipped < due) {
            EventConnection *free_connection = NULL;
            for (int index = 0; index < CONNECTIONS && !free_connection; index++)
                if (!connections[index].busy) free_connection = &connections[index];
            if (!free_connection) break;
            int session = next_session;
            next_session = (next_session + 1) % session_count;
            if (sessions_state[session].in_flight) {
                skipped++;
                continue;
            }
            Session *state = &sessions_state[session];
            state->on = !state->on;
            state->in_flight = 1;
            free_connection->busy = 1;
            free_connection->session = session;
            int length = switch_request(request, sizeof request, load_tokens[session], state->on);
            send_all(free_connection->watched.fd, request, (size_t)length);
            sent++;
        }
        pump(1, on_load);
    }
    // Let the last deliveries arrive.
    int64_t drain = now_ns() + 500 * (int64_t)1000000;
    while (now_ns() < drain) pump(10, on_load);
    printf("load streams %d sessions %d events_per_s %.0f failed %ld skipped %ld deliveries %ld p50_ms %.2f p99_ms %.2f early %ld\n", count,
        session_count, (double)events_answered / seconds, events_failed, skipped, load_latency_count,
        percentile_ms(load_latencies, load_latency_count, 0.5), percentile_ms(load_latencies, load_latency_count, 0.99), load_early);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: live-client idle|fanout|load PORT ...\n");
        return 2;
    }
    port = atoi(argv[2]);
    if (!strcmp(argv[1], "idle") && argc == 6) return run_idle(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (!strcmp(argv[1], "fanout") && (argc == 5 || argc == 6))
        return run_fanout(atoi(argv[3]), atoi(argv[4]), argc == 6 ? atoi(argv[5]) : port);
    if (!strcmp(argv[1], "load") && argc == 7) return run_load(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    fprintf(stderr, "usage: see the comment at the top of live-client.c\n");
    return 2;
}
