/*
 * dsh_session._speedups: the session's hot paths in C.
 *
 * Optional: every function here has a Python twin (``_accel.py`` says which
 * one runs), and each fast path either does exactly what the Python path
 * does or declines having changed nothing, leaving the Python path to decide
 * and to word any error. What is here:
 *
 * - plain_text(value): the canonical JSON text of a value made only of exact
 *   dicts (ASCII keys that do not start with a digit), lists, strs (no
 *   surrogates), safe ints, bools and None, at most MAX_DEPTH containers
 *   deep; None for anything else (the careful pass then decides). The bytes
 *   are JSON.stringify's for that value.
 * - SessionCore and SurfaceCore: the state of a Session and of a
 *   SurfaceManager, as C fields (the Python classes subclass them), so that
 * - fast_append(session, type, data, surface_op, source_event_seqs) can admit
 *   the common events -- a log-only event, or a surface "append" with its
 *   provenance -- fold it and project its message without a Python frame.
 * - fast_derive(session): the derived history's cached texts, when every
 *   node on the surface has been projected already.
 *
 * Nothing here calls back into Python code it does not own except the
 * session's clock and append hook, at the points where the Python path calls
 * them; the encoder runs no Python code at all, so the containers it walks
 * cannot change under it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>
#include <time.h>

#define MAX_DEPTH 200
#define EXACT (((long long)1) << 53)

enum { ENC_OK = 0, ENC_UNUSUAL = 1, ENC_ERROR = -1 };

/* ------------------------------------------------------------------------ */
/* A growable byte buffer, on the stack while it is small.                    */

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
    char small[1024];
} Buf;

static void
buf_init(Buf *b)
{
    b->data = b->small;
    b->len = 0;
    b->cap = (Py_ssize_t)sizeof(b->small);
}

static void
buf_free(Buf *b)
{
    if (b->data != b->small) {
        PyMem_Free(b->data);
    }
    b->data = b->small;
}

static int
buf_grow(Buf *b, Py_ssize_t extra)
{
    if (extra > PY_SSIZE_T_MAX / 2 - b->len) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t need = b->len + extra;
    Py_ssize_t cap = b->cap;
    while (cap < need) {
        cap *= 2;
    }
    char *grown;
    if (b->data == b->small) {
        grown = PyMem_Malloc((size_t)cap);
        if (grown != NULL) {
            memcpy(grown, b->data, (size_t)b->len);
        }
    }
    else {
        grown = PyMem_Realloc(b->data, (size_t)cap);
    }
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

#define BUF_RESERVE(b, n) (((b)->cap - (b)->len >= (n)) ? 0 : buf_grow((b), (n)))

static int
buf_write(Buf *b, const char *bytes, Py_ssize_t n)
{
    if (BUF_RESERVE(b, n) < 0) {
        return -1;
    }
    memcpy(b->data + b->len, bytes, (size_t)n);
    b->len += n;
    return 0;
}

#define BUF_LITERAL(b, text) buf_write((b), (text), (Py_ssize_t)(sizeof(text) - 1))

/* ------------------------------------------------------------------------ */
/* The plain encoder.                                                          */

/* For each ASCII character: 0 when it is written as it is, else the letter of
 * its short escape ('u' for \u00XX), as JSON.stringify writes them. */
static char escape_of[128];

static void
init_escapes(void)
{
    for (int c = 0; c < 0x20; c++) {
        escape_of[c] = 'u';
    }
    escape_of['\b'] = 'b';
    escape_of['\t'] = 't';
    escape_of['\n'] = 'n';
    escape_of['\f'] = 'f';
    escape_of['\r'] = 'r';
    escape_of['"'] = '"';
    escape_of['\\'] = '\\';
}

static const char hex_digits[] = "0123456789abcdef";

/* Writes the escape of ASCII character c (escape_of[c] != 0); room for 6 bytes reserved. */
static void
put_escape(Buf *b, unsigned int c)
{
    char *out = b->data + b->len;
    char letter = escape_of[c];
    out[0] = '\\';
    if (letter != 'u') {
        out[1] = letter;
        b->len += 2;
        return;
    }
    out[1] = 'u';
    out[2] = '0';
    out[3] = '0';
    out[4] = hex_digits[c >> 4];
    out[5] = hex_digits[c & 15];
    b->len += 6;
}

static int
enc_str(Buf *b, PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text)) {
        const unsigned char *chars = PyUnicode_1BYTE_DATA(text);
        if (BUF_RESERVE(b, n + 2) < 0) {
            return ENC_ERROR;
        }
        b->data[b->len++] = '"';
        Py_ssize_t run = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            unsigned int c = chars[i];
            if (escape_of[c] == 0) {
                continue;
            }
            if (i > run) {
                if (buf_write(b, (const char *)chars + run, i - run) < 0) {
                    return ENC_ERROR;
                }
            }
            /* the escape, and room for the rest of the string and its quote */
            if (BUF_RESERVE(b, 6 + (n - i) + 1) < 0) {
                return ENC_ERROR;
            }
            put_escape(b, c);
            run = i + 1;
        }
        if (buf_write(b, (const char *)chars + run, n - run) < 0) {
            return ENC_ERROR;
        }
        if (BUF_RESERVE(b, 1) < 0) {
            return ENC_ERROR;
        }
        b->data[b->len++] = '"';
        return ENC_OK;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* at most 4 bytes a character, or 6 for an escaped control character */
    if (BUF_RESERVE(b, 2) < 0) {
        return ENC_ERROR;
    }
    b->data[b->len++] = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (BUF_RESERVE(b, 6) < 0) {
            return ENC_ERROR;
        }
        char *out = b->data + b->len;
        if (c < 0x80) {
            if (escape_of[c] != 0) {
                put_escape(b, (unsigned int)c);
            }
            else {
                out[0] = (char)c;
                b->len += 1;
            }
        }
        else if (c < 0x800) {
            out[0] = (char)(0xC0 | (c >> 6));
            out[1] = (char)(0x80 | (c & 0x3F));
            b->len += 2;
        }
        else if (c >= 0xD800 && c <= 0xDFFF) {
            return ENC_UNUSUAL; /* a surrogate: JavaScript's spelling is the careful pass's */
        }
        else if (c < 0x10000) {
            out[0] = (char)(0xE0 | (c >> 12));
            out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[2] = (char)(0x80 | (c & 0x3F));
            b->len += 3;
        }
        else {
            out[0] = (char)(0xF0 | (c >> 18));
            out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[3] = (char)(0x80 | (c & 0x3F));
            b->len += 4;
        }
    }
    if (BUF_RESERVE(b, 1) < 0) {
        return ENC_ERROR;
    }
    b->data[b->len++] = '"';
    return ENC_OK;
}

static int
enc_int(Buf *b, PyObject *number)
{
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (value == -1 && PyErr_Occurred()) {
        return ENC_ERROR;
    }
    if (overflow != 0 || value > EXACT || value < -EXACT) {
        return ENC_UNUSUAL;
    }
    char digits[24];
    int at = (int)sizeof(digits);
    unsigned long long magnitude = value < 0 ? (unsigned long long)(-value) : (unsigned long long)value;
    do {
        digits[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0) {
        digits[--at] = '-';
    }
    return buf_write(b, digits + at, (Py_ssize_t)sizeof(digits) - at) < 0 ? ENC_ERROR : ENC_OK;
}

static int enc_value(Buf *b, PyObject *value, int depth);

static int
enc_dict(Buf *b, PyObject *object, int depth)
{
    if (depth > MAX_DEPTH) {
        return ENC_UNUSUAL;
    }
    if (BUF_LITERAL(b, "{") < 0) {
        return ENC_ERROR;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *item;
    int first = 1;
    while (PyDict_Next(object, &pos, &key, &item)) {
        if (!PyUnicode_CheckExact(key) || !PyUnicode_IS_ASCII(key)) {
            return ENC_UNUSUAL;
        }
        if (PyUnicode_GET_LENGTH(key) > 0) {
            Py_UCS1 lead = PyUnicode_1BYTE_DATA(key)[0];
            if (lead >= '0' && lead <= '9') {
                return ENC_UNUSUAL; /* may be an array index, which JavaScript puts first */
            }
        }
        if (!first && BUF_LITERAL(b, ",") < 0) {
            return ENC_ERROR;
        }
        first = 0;
        int done = enc_str(b, key);
        if (done != ENC_OK) {
            return done;
        }
        if (BUF_LITERAL(b, ":") < 0) {
            return ENC_ERROR;
        }
        done = enc_value(b, item, depth + 1);
        if (done != ENC_OK) {
            return done;
        }
    }
    return BUF_LITERAL(b, "}") < 0 ? ENC_ERROR : ENC_OK;
}

static int
enc_list(Buf *b, PyObject *list, int depth)
{
    if (depth > MAX_DEPTH) {
        return ENC_UNUSUAL;
    }
    if (BUF_LITERAL(b, "[") < 0) {
        return ENC_ERROR;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        if (i > 0 && BUF_LITERAL(b, ",") < 0) {
            return ENC_ERROR;
        }
        int done = enc_value(b, PyList_GET_ITEM(list, i), depth + 1);
        if (done != ENC_OK) {
            return done;
        }
    }
    return BUF_LITERAL(b, "]") < 0 ? ENC_ERROR : ENC_OK;
}

/* ``depth`` is the value's own if it is a container (the top value's is 1). */
static int
enc_value(Buf *b, PyObject *value, int depth)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (kind == &PyUnicode_Type) {
        return enc_str(b, value);
    }
    if (kind == &PyLong_Type) {
        return enc_int(b, value);
    }
    if (kind == &PyDict_Type) {
        return enc_dict(b, value, depth);
    }
    if (kind == &PyList_Type) {
        return enc_list(b, value, depth);
    }
    if (value == Py_True) {
        return BUF_LITERAL(b, "true") < 0 ? ENC_ERROR : ENC_OK;
    }
    if (value == Py_False) {
        return BUF_LITERAL(b, "false") < 0 ? ENC_ERROR : ENC_OK;
    }
    if (value == Py_None) {
        return BUF_LITERAL(b, "null") < 0 ? ENC_ERROR : ENC_OK;
    }
    return ENC_UNUSUAL;
}

/* The plain text of ``value`` as new bytes; Py_None (a new reference) when it is not plain. */
static PyObject *
plain_bytes(PyObject *value)
{
    Buf b;
    buf_init(&b);
    int done = enc_value(&b, value, 1);
    PyObject *out;
    if (done == ENC_OK) {
        out = PyBytes_FromStringAndSize(b.data, b.len);
    }
    else if (done == ENC_UNUSUAL) {
        out = Py_NewRef(Py_None);
    }
    else {
        out = NULL;
    }
    buf_free(&b);
    return out;
}

static PyObject *
plain_text(PyObject *module, PyObject *value)
{
    return plain_bytes(value);
}

/* ------------------------------------------------------------------------ */
/* What the Python side hands over once (configure).                          */

static PyObject *LoggedEventType = NULL; /* dsh_session.event.LoggedEvent */
static PyObject *SurfaceTypes = NULL;    /* dsh_session.event.SURFACE_TYPES, a frozenset */
static PyObject *AppendOp = NULL;        /* dsh_session.event.APPEND, the "append" the log holds */
static PyObject *FormCanonical = NULL;   /* json_value.CANONICAL, the int 0 */
static PyObject *MessageListType = NULL; /* dsh_session.views.MessageList */

static PyObject *one;
static PyObject *str_user_message, *str_assistant_message, *str_tool_result;
static PyObject *str_content, *str_type, *str_call_id, *str_is_error;

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *logged, *surface_types, *append_op, *canonical, *message_list;
    if (!PyArg_ParseTuple(args, "OO!UO!O:configure", &logged, &PyFrozenSet_Type, &surface_types,
                          &append_op, &PyLong_Type, &canonical, &message_list)) {
        return NULL;
    }
    Py_XSETREF(LoggedEventType, Py_NewRef(logged));
    Py_XSETREF(SurfaceTypes, Py_NewRef(surface_types));
    Py_XSETREF(AppendOp, Py_NewRef(append_op));
    Py_XSETREF(FormCanonical, Py_NewRef(canonical));
    Py_XSETREF(MessageListType, Py_NewRef(message_list));
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------ */
/* SurfaceCore and SessionCore: the state, as C fields.                       */

typedef struct {
    PyObject_HEAD
    PyObject *log;
    PyObject *generation;
    PyObject *owned;
    PyObject *rank;
    PyObject *prev;
    PyObject *next;
    PyObject *messages;
    PyObject *head;
    PyObject *tail;
    PyObject *folded;
    PyObject *snapshot;
} SurfaceCore;

#define SURFACE_FIELDS(X) \
    X(log) X(generation) X(owned) X(rank) X(prev) X(next) X(messages) X(head) X(tail) X(folded) X(snapshot)

typedef struct {
    PyObject_HEAD
    PyObject *id;
    PyObject *trace;
    PyObject *clock;
    PyObject *last_time;
    PyObject *log;
    PyObject *surface;
    PyObject *messages;
    PyObject *derived_generation;
    PyObject *derived_last;
    PyObject *append_hook;
    PyObject *header_fold;
    PyObject *header_cursor;
    PyObject *header;
} SessionCore;

#define SESSION_FIELDS(X)                                                                     \
    X(id) X(trace) X(clock) X(last_time) X(log) X(surface) X(messages) X(derived_generation) \
    X(derived_last) X(append_hook) X(header_fold) X(header_cursor) X(header)

#define VISIT_FIELD(name) Py_VISIT(self->name);
#define CLEAR_FIELD(name) Py_CLEAR(self->name);

static int
surface_traverse(SurfaceCore *self, visitproc visit, void *arg)
{
    SURFACE_FIELDS(VISIT_FIELD)
    return 0;
}

static int
surface_clear(SurfaceCore *self)
{
    SURFACE_FIELDS(CLEAR_FIELD)
    return 0;
}

static void
surface_dealloc(SurfaceCore *self)
{
    PyTypeObject *kind = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    surface_clear(self);
    kind->tp_free((PyObject *)self); /* a subclass's own dealloc releases its type */
}

static int
session_traverse(SessionCore *self, visitproc visit, void *arg)
{
    SESSION_FIELDS(VISIT_FIELD)
    return 0;
}

static int
session_clear(SessionCore *self)
{
    SESSION_FIELDS(CLEAR_FIELD)
    return 0;
}

static void
session_dealloc(SessionCore *self)
{
    PyTypeObject *kind = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    session_clear(self);
    kind->tp_free((PyObject *)self); /* a subclass's own dealloc releases its type */
}

#define SURFACE_MEMBER(name) {"_" #name, T_OBJECT_EX, offsetof(SurfaceCore, name), 0, NULL},
#define SESSION_MEMBER(name) {"_" #name, T_OBJECT_EX, offsetof(SessionCore, name), 0, NULL},

static PyMemberDef surface_members[] = {SURFACE_FIELDS(SURFACE_MEMBER){NULL}};
static PyMemberDef session_members[] = {SESSION_FIELDS(SESSION_MEMBER){NULL}};

static PyTypeObject SurfaceCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dsh_session._speedups.SurfaceCore",
    .tp_doc = PyDoc_STR("The state of a SurfaceManager (the links, ranks and cached messages)."),
    .tp_basicsize = sizeof(SurfaceCore),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)surface_dealloc,
    .tp_traverse = (traverseproc)surface_traverse,
    .tp_clear = (inquiry)surface_clear,
    .tp_members = surface_members,
};

static PyTypeObject SessionCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dsh_session._speedups.SessionCore",
    .tp_doc = PyDoc_STR("The state of a Session (its log, surface, clock and derived history)."),
    .tp_basicsize = sizeof(SessionCore),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)session_dealloc,
    .tp_traverse = (traverseproc)session_traverse,
    .tp_clear = (inquiry)session_clear,
    .tp_members = session_members,
};

/* ------------------------------------------------------------------------ */
/* Admission's common cases.                                                   */

/* True when ``data`` (a plain value) has the shape a surface event of ``kind`` needs and the
 * kind is one whose message is projected here; false sends the event to the Python path. */
static int
plain_shape(PyObject *kind, PyObject *data)
{
    if (!PyDict_CheckExact(data)) {
        return 0;
    }
    PyObject *content = PyDict_GetItemWithError(data, str_content);
    if (content == NULL || !PyList_CheckExact(content)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); i++) {
        PyObject *block = PyList_GET_ITEM(content, i);
        if (!PyDict_CheckExact(block)) {
            return 0;
        }
        PyObject *tag = PyDict_GetItemWithError(block, str_type);
        if (tag == NULL || !PyUnicode_CheckExact(tag)) {
            return 0;
        }
    }
    if (kind == str_tool_result) {
        PyObject *call = PyDict_GetItemWithError(data, str_call_id);
        PyObject *failed = PyDict_GetItemWithError(data, str_is_error);
        return call != NULL && PyUnicode_CheckExact(call) && (failed == Py_True || failed == Py_False);
    }
    return kind == str_user_message || kind == str_assistant_message;
}

/* The message a plain, well-shaped payload projects to, as new bytes; Py_None (new) for none. */
static PyObject *
plain_message(PyObject *kind, PyObject *data)
{
    PyObject *content = PyDict_GetItemWithError(data, str_content);
    Buf b;
    buf_init(&b);
    int done;
    if (kind == str_assistant_message && PyList_GET_SIZE(content) == 0) {
        return Py_NewRef(Py_None);
    }
    if (kind == str_tool_result) {
        PyObject *call = PyDict_GetItemWithError(data, str_call_id);
        PyObject *failed = PyDict_GetItemWithError(data, str_is_error);
        done = BUF_LITERAL(&b, "{\"role\":\"user\",\"content\":[{\"type\":\"tool-result\",\"toolCallId\":") < 0
                   ? ENC_ERROR
                   : enc_str(&b, call);
        if (done == ENC_OK) {
            done = BUF_LITERAL(&b, ",\"content\":") < 0 ? ENC_ERROR : enc_value(&b, content, 2);
        }
        if (done == ENC_OK) {
            done = (failed == Py_True ? BUF_LITERAL(&b, ",\"isError\":true}]}")
                                      : BUF_LITERAL(&b, ",\"isError\":false}]}")) < 0
                       ? ENC_ERROR
                       : ENC_OK;
        }
    }
    else {
        done = (kind == str_user_message ? BUF_LITERAL(&b, "{\"role\":\"user\",\"content\":")
                                         : BUF_LITERAL(&b, "{\"role\":\"assistant\",\"content\":")) < 0
                   ? ENC_ERROR
                   : enc_value(&b, content, 2);
        if (done == ENC_OK) {
            done = BUF_LITERAL(&b, "}") < 0 ? ENC_ERROR : ENC_OK;
        }
    }
    PyObject *out = NULL;
    if (done == ENC_OK) {
        out = PyBytes_FromStringAndSize(b.data, b.len);
    }
    else if (done == ENC_UNUSUAL) {
        /* cannot happen: the payload it is cut from is plain */
        PyErr_SetString(PyExc_SystemError, "a plain payload's message is not plain");
    }
    buf_free(&b);
    return out;
}

/* The provenance as a new tuple when it is the common case -- distinct ints naming earlier
 * events -- else Py_None (new); NULL on error. */
static PyObject *
plain_provenance(PyObject *raw, Py_ssize_t seq)
{
    if (!PyList_CheckExact(raw) && !PyTuple_CheckExact(raw)) {
        return Py_NewRef(Py_None);
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(raw);
    if (n == 0 || n > 64) {
        return Py_NewRef(Py_None);
    }
    PyObject **items = PySequence_Fast_ITEMS(raw);
    long long seen[64];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ref = items[i];
        if (!PyLong_CheckExact(ref)) {
            return Py_NewRef(Py_None);
        }
        int overflow = 0;
        long long value = PyLong_AsLongLongAndOverflow(ref, &overflow);
        if (value == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (overflow != 0 || value < 0 || value >= (long long)seq) {
            return Py_NewRef(Py_None);
        }
        for (Py_ssize_t j = 0; j < i; j++) {
            if (seen[j] == value) {
                return Py_NewRef(Py_None);
            }
        }
        seen[i] = value;
    }
    PyObject *refs = PyTuple_New(n);
    if (refs == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTuple_SET_ITEM(refs, i, Py_NewRef(items[i]));
    }
    return refs;
}

/* surface._snapshot = None, then the node ``seq`` linked at the tail (SurfaceManager._append). */
static int
link_at_tail(SurfaceCore *surface, PyObject *seq)
{
    PyObject *tail = surface->tail;
    PyObject *rank;
    if (tail == Py_None) {
        rank = PyLong_FromLong(0);
    }
    else {
        PyObject *above = PyDict_GetItemWithError(surface->rank, tail);
        if (above == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetObject(PyExc_KeyError, tail);
            }
            return -1;
        }
        rank = PyNumber_Add(above, one);
    }
    if (rank == NULL) {
        return -1;
    }
    int failed = PyDict_SetItem(surface->rank, seq, rank);
    Py_DECREF(rank);
    if (failed < 0) {
        return -1;
    }
    if (tail == Py_None) {
        Py_SETREF(surface->head, Py_NewRef(seq));
    }
    else if (PyDict_SetItem(surface->next, tail, seq) < 0) {
        return -1;
    }
    if (PyDict_SetItem(surface->prev, seq, tail) < 0 || PyDict_SetItem(surface->next, seq, Py_None) < 0) {
        return -1;
    }
    Py_SETREF(surface->tail, Py_NewRef(seq));
    return 0;
}

/* The time of the next event: the session's clock read (or the wall clock in milliseconds),
 * one int object for the events of a millisecond. New reference. */
static PyObject *
read_time(SessionCore *self)
{
    PyObject *time;
    if (self->clock == Py_None) {
        struct timespec now;
        if (clock_gettime(CLOCK_REALTIME, &now) != 0) {
            PyErr_SetFromErrno(PyExc_OSError);
            return NULL;
        }
        long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
        PyObject *last = self->last_time;
        if (last != NULL && PyLong_CheckExact(last)) {
            int overflow = 0;
            long long held = PyLong_AsLongLongAndOverflow(last, &overflow);
            if (held == -1 && PyErr_Occurred()) {
                return NULL;
            }
            if (overflow == 0 && held == ms) {
                return Py_NewRef(last);
            }
        }
        time = PyLong_FromLongLong(ms);
    }
    else {
        time = PyObject_CallNoArgs(self->clock);
        if (time == NULL || !PyLong_CheckExact(time)) {
            return time; /* the Python path interns what is not an int, as it always has */
        }
        PyObject *last = self->last_time;
        if (last != NULL && PyLong_CheckExact(last)) {
            int same = PyObject_RichCompareBool(time, last, Py_EQ);
            if (same < 0) {
                Py_DECREF(time);
                return NULL;
            }
            if (same) {
                Py_SETREF(time, Py_NewRef(last));
                return time;
            }
        }
    }
    if (time != NULL) {
        Py_XSETREF(self->last_time, Py_NewRef(time));
    }
    return time;
}

/* A tuple holding ``time``: the fast path declines, and the Python path goes on from this time. */
static PyObject *
declined(PyObject *time)
{
    PyObject *out = PyTuple_Pack(1, time);
    Py_DECREF(time);
    return out;
}

static int
safe_int(PyObject *value)
{
    if (!PyLong_CheckExact(value)) {
        return 0;
    }
    int overflow = 0;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    return overflow == 0 && number <= EXACT && number >= -EXACT;
}

static PyObject *
call_hook(SessionCore *self, PyObject *event)
{
    PyObject *hook = self->append_hook;
    if (hook != NULL && hook != Py_None) {
        Py_INCREF(hook);
        PyObject *result = PyObject_CallFunctionObjArgs(hook, (PyObject *)self, event, NULL);
        Py_DECREF(hook);
        if (result == NULL) {
            Py_DECREF(event);
            return NULL;
        }
        Py_DECREF(result);
    }
    return event;
}

/* fast_append(session, type, data, surface_op, source_event_seqs): the appended event, or a
 * 1-tuple holding the time read for it when the Python path must take the event from there. */
static PyObject *
fast_append(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "fast_append takes 5 arguments");
        return NULL;
    }
    if (!PyObject_TypeCheck(args[0], &SessionCoreType)) {
        PyErr_SetString(PyExc_TypeError, "fast_append needs a SessionCore");
        return NULL;
    }
    if (LoggedEventType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dsh_session._speedups is not configured");
        return NULL;
    }
    SessionCore *self = (SessionCore *)args[0];
    PyObject *kind = args[1], *data = args[2], *op = args[3], *raw_refs = args[4];
    if (self->clock == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_clock");
        return NULL;
    }
    PyObject *time = read_time(self);
    if (time == NULL) {
        return NULL;
    }
    PyObject *log = self->log;
    SurfaceCore *surface = (SurfaceCore *)self->surface;
    if (self->trace != Py_None || log == NULL || !PyList_CheckExact(log) || surface == NULL ||
        !PyObject_TypeCheck((PyObject *)surface, &SurfaceCoreType) || surface->folded != Py_None ||
        !PyUnicode_CheckExact(kind) || PyUnicode_GET_LENGTH(kind) == 0 || !safe_int(time)) {
        return declined(time);
    }
    int on_surface = PySet_Contains(SurfaceTypes, kind);
    if (on_surface < 0) {
        Py_DECREF(time);
        return NULL;
    }
    if (!on_surface && (op != Py_None || raw_refs != Py_None)) {
        return declined(time);
    }
    if (on_surface) {
        if (op == Py_None || !PyUnicode_CheckExact(op) || PyUnicode_Compare(op, AppendOp) != 0 ||
            surface->rank == NULL || !PyDict_CheckExact(surface->rank) || surface->prev == NULL ||
            !PyDict_CheckExact(surface->prev) || surface->next == NULL || !PyDict_CheckExact(surface->next) ||
            surface->messages == NULL || !PyDict_CheckExact(surface->messages) || surface->tail == NULL ||
            surface->head == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(time);
                return NULL;
            }
            return declined(time);
        }
        if (PyUnicode_CheckExact(kind)) {
            /* the projection below compares kinds by identity: use the interned names */
            if (PyUnicode_Compare(kind, str_user_message) == 0) {
                kind = str_user_message;
            }
            else if (PyUnicode_Compare(kind, str_assistant_message) == 0) {
                kind = str_assistant_message;
            }
            else if (PyUnicode_Compare(kind, str_tool_result) == 0) {
                kind = str_tool_result;
            }
            else {
                return declined(time); /* context and steering messages: the Python path */
            }
        }
    }
    PyObject *text = plain_bytes(data);
    if (text == NULL) {
        Py_DECREF(time);
        return NULL;
    }
    if (text == Py_None) {
        Py_DECREF(text);
        return declined(time);
    }
    Py_ssize_t at = PyList_GET_SIZE(log);
    PyObject *seq = PyLong_FromSsize_t(at);
    if (seq == NULL) {
        Py_DECREF(text);
        Py_DECREF(time);
        return NULL;
    }
    PyObject *event;
    if (!on_surface) {
        PyObject *fields[4] = {args[1], seq, time, text};
        event = PyObject_Vectorcall(LoggedEventType, fields, 4, NULL);
        Py_DECREF(seq);
        Py_DECREF(text);
        Py_DECREF(time);
        if (event == NULL || PyList_Append(log, event) < 0) {
            Py_XDECREF(event);
            return NULL;
        }
        return call_hook(self, event);
    }
    PyObject *refs = raw_refs == Py_None ? Py_NewRef(Py_None) : plain_provenance(raw_refs, at);
    int shaped = refs == NULL ? -1 : (raw_refs != Py_None && refs == Py_None) ? 0 : plain_shape(kind, data);
    if (shaped == 0 && PyErr_Occurred()) {
        shaped = -1;
    }
    PyObject *message = shaped == 1 ? plain_message(kind, data) : NULL;
    if (shaped < 0 || (shaped == 1 && message == NULL)) {
        Py_XDECREF(refs);
        Py_DECREF(seq);
        Py_DECREF(text);
        Py_DECREF(time);
        return NULL;
    }
    if (shaped == 0) {
        Py_XDECREF(refs);
        Py_DECREF(seq);
        Py_DECREF(text);
        return declined(time);
    }
    PyObject *fields[8] = {args[1], seq, time, text, refs, AppendOp, Py_None, FormCanonical};
    event = PyObject_Vectorcall(LoggedEventType, fields, 8, NULL);
    Py_DECREF(refs);
    Py_DECREF(text);
    Py_DECREF(time);
    if (event == NULL) {
        Py_DECREF(seq);
        Py_DECREF(message);
        return NULL;
    }
    /* From here on the event is in the log: what follows is the fold, which cannot be refused. */
    if (PyList_Append(log, event) < 0) {
        Py_DECREF(seq);
        Py_DECREF(message);
        Py_DECREF(event);
        return NULL;
    }
    Py_SETREF(surface->snapshot, Py_NewRef(Py_None));
    int failed = link_at_tail(surface, seq) < 0 || PyDict_SetItem(surface->messages, seq, message) < 0;
    Py_DECREF(seq);
    Py_DECREF(message);
    if (failed) {
        Py_DECREF(event);
        return NULL;
    }
    return call_hook(self, event);
}

/* ------------------------------------------------------------------------ */
/* The derived history.                                                        */

/* fast_derive(session): Session.derive_messages' result when every node it would add is
 * projected already and no replace happened since the last call; None (the Python path
 * decides) otherwise. */
static PyObject *
fast_derive(PyObject *module, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, &SessionCoreType)) {
        PyErr_SetString(PyExc_TypeError, "fast_derive needs a SessionCore");
        return NULL;
    }
    SessionCore *self = (SessionCore *)arg;
    SurfaceCore *surface = (SurfaceCore *)self->surface;
    if (surface == NULL || !PyObject_TypeCheck((PyObject *)surface, &SurfaceCoreType) ||
        surface->folded != Py_None || surface->generation == NULL || self->derived_generation == NULL ||
        self->messages == NULL || !PyList_CheckExact(self->messages) || self->derived_last == NULL ||
        surface->next == NULL || !PyDict_CheckExact(surface->next) || surface->messages == NULL ||
        !PyDict_CheckExact(surface->messages) || surface->head == NULL || MessageListType == NULL) {
        Py_RETURN_NONE;
    }
    int same = PyObject_RichCompareBool(surface->generation, self->derived_generation, Py_EQ);
    if (same <= 0) {
        if (same < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    PyObject *last = self->derived_last;
    PyObject *seq;
    if (last == Py_None) {
        seq = surface->head;
    }
    else {
        seq = PyDict_GetItemWithError(surface->next, last);
        if (seq == NULL) {
            if (PyErr_Occurred()) {
                return NULL;
            }
            Py_RETURN_NONE;
        }
    }
    /* First make sure every node to add has its message, so that nothing changes on a decline. */
    PyObject *probe = seq;
    while (probe != Py_None) {
        PyObject *text = PyDict_GetItemWithError(surface->messages, probe);
        if (text == NULL) {
            if (PyErr_Occurred()) {
                return NULL;
            }
            Py_RETURN_NONE;
        }
        probe = PyDict_GetItemWithError(surface->next, probe);
        if (probe == NULL) {
            if (PyErr_Occurred()) {
                return NULL;
            }
            Py_RETURN_NONE;
        }
    }
    PyObject *messages = self->messages;
    PyObject *reached = last;
    while (seq != Py_None) {
        PyObject *text = PyDict_GetItemWithError(surface->messages, seq);
        if (text != Py_None && PyList_Append(messages, text) < 0) {
            break;
        }
        reached = seq;
        seq = PyDict_GetItemWithError(surface->next, seq);
    }
    Py_SETREF(self->derived_last, Py_NewRef(reached));
    if (PyErr_Occurred()) {
        return NULL;
    }
    return PyObject_CallOneArg(MessageListType, messages);
}

/* ------------------------------------------------------------------------ */

static PyMethodDef speedups_methods[] = {
    {"plain_text", (PyCFunction)plain_text, METH_O,
     PyDoc_STR("plain_text(value) -> bytes | None: the canonical text of a plain JSON value, "
               "or None when the careful pass must decide.")},
    {"configure", (PyCFunction)configure, METH_VARARGS,
     PyDoc_STR("configure(LoggedEvent, SURFACE_TYPES, APPEND, CANONICAL, MessageList)")},
    {"fast_append", (PyCFunction)(void (*)(void))fast_append, METH_FASTCALL,
     PyDoc_STR("fast_append(session, type, data, surface_op, source_event_seqs) -> event | (time,)")},
    {"fast_derive", (PyCFunction)fast_derive, METH_O,
     PyDoc_STR("fast_derive(session) -> MessageList | None")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "dsh_session._speedups",
    .m_doc = PyDoc_STR("The session's hot paths in C (optional; see dsh_session._accel)."),
    .m_size = -1,
    .m_methods = speedups_methods,
};

static int
intern(PyObject **slot, const char *text)
{
    *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC
PyInit__speedups(void)
{
    init_escapes();
    one = PyLong_FromLong(1);
    if (one == NULL) {
        return NULL;
    }
    if (intern(&str_user_message, "user/message") < 0 ||
        intern(&str_assistant_message, "assistant/message") < 0 ||
        intern(&str_tool_result, "tool/result") < 0 || intern(&str_content, "content") < 0 ||
        intern(&str_type, "type") < 0 || intern(&str_call_id, "callId") < 0 ||
        intern(&str_is_error, "isError") < 0) {
        return NULL;
    }
    if (PyType_Ready(&SurfaceCoreType) < 0 || PyType_Ready(&SessionCoreType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&speedups_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "SurfaceCore", (PyObject *)&SurfaceCoreType) < 0 ||
        PyModule_AddObjectRef(module, "SessionCore", (PyObject *)&SessionCoreType) < 0 ||
        PyModule_AddIntConstant(module, "MAX_DEPTH", MAX_DEPTH) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
