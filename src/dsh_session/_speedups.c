/*
 * dsh_session._speedups: the session's hot paths in C.
 *
 * Optional: the Python code is complete on its own (``_accel.py`` says which
 * runs), and each path here either does exactly what the Python code does or
 * declines having changed nothing, leaving the Python code to decide and to
 * word any refusal. What is here:
 *
 * - plain_text(value): the canonical JSON text of a value made only of exact
 *   dicts (ASCII keys that do not start with a digit), lists, strs (no
 *   surrogates), safe ints, bools and None, at most MAX_DEPTH containers
 *   deep; None for anything else (the careful pass then decides). The bytes
 *   are JSON.stringify's for that value. (Twin: json_value._lean_text.)
 * - SessionCore and SurfaceCore: the state of a Session and of a
 *   SurfaceManager as C fields (the Python classes subclass them), and
 *   SessionCore's methods append and derive_messages: a log-only event, a
 *   surface append with its provenance or a compaction's replace admitted,
 *   folded and projected; the history extended from its cache, or linked anew
 *   after a replace. (Twins: Session._python_append, which goes on in
 *   Session._append_at, where a declined event continues, and
 *   Session._python_derive_messages.)
 * - rows_events(...): a load's run of plain database rows as events.
 *   (Twin: persistence._bulk.rows_run's Python code.)
 *
 * Nothing here calls back into Python code it does not own except the
 * session's clock and append hook, at the points where the Python code calls
 * them, and msgspec's decoders; the encoder runs no Python code at all, so the
 * containers it walks cannot change under it.
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

/* Short ASCII strings with nothing to escape, by identity: most keys and many values recur
 * (code constants, interned names), and copying their text beats reading it again. Each entry
 * holds a reference to its string, so no other object can come to live at its address. */
#define STR_CACHE_SIZE 512
#define STR_CACHE_LONGEST 30
typedef struct {
    PyObject *text;
    unsigned char len; /* of ``quoted`` */
    char quoted[STR_CACHE_LONGEST + 2];
} CachedStr;
static CachedStr str_cache[STR_CACHE_SIZE];

static inline CachedStr *
cache_slot(PyObject *text)
{
    return &str_cache[((uintptr_t)text >> 4) & (STR_CACHE_SIZE - 1)];
}

static int enc_str_written(Buf *b, PyObject *text);

/* A string: from the cache when it is there (kept small, so that it inlines), else written. */
static inline int
enc_str(Buf *b, PyObject *text)
{
    CachedStr *slot = cache_slot(text);
    if (slot->text == text && b->cap - b->len >= (Py_ssize_t)sizeof(slot->quoted)) {
        memcpy(b->data + b->len, slot->quoted, sizeof(slot->quoted)); /* a fixed size: inlined */
        b->len += slot->len;
        return ENC_OK;
    }
    return enc_str_written(b, text);
}

static int
enc_str_written(Buf *b, PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_IS_ASCII(text)) {
        CachedStr *slot = n <= STR_CACHE_LONGEST ? cache_slot(text) : NULL;
        const unsigned char *chars = PyUnicode_1BYTE_DATA(text);
        if (BUF_RESERVE(b, n + 2) < 0) {
            return ENC_ERROR;
        }
        char *out = b->data + b->len;
        *out++ = '"';
        Py_ssize_t i = 0;
        for (; i < n; i++) {
            unsigned char c = chars[i];
            if (escape_of[c] != 0) {
                break;
            }
            out[i] = (char)c;
        }
        if (i == n && slot != NULL) {
            out[n] = '"';
            memcpy(slot->quoted, out - 1, (size_t)n + 2);
            slot->len = (unsigned char)(n + 2);
            Py_XSETREF(slot->text, Py_NewRef(text)); /* an exact str: its release runs no Python code */
            b->len += n + 2;
            return ENC_OK;
        }
        b->len += 1 + i;
        for (; i < n; i++) { /* from the first character to escape on: room checked each time */
            unsigned int c = chars[i];
            if (BUF_RESERVE(b, 7) < 0) {
                return ENC_ERROR;
            }
            if (escape_of[c] != 0) {
                put_escape(b, c);
            }
            else {
                b->data[b->len++] = (char)c;
            }
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

/* An exact int's value when it fits one machine word of CPython's representation (most do),
 * read directly; else through the API. *known is 0 when the value is beyond a long long. */
static inline long long
int_value(PyObject *number, int *overflow)
{
#if PY_VERSION_HEX < 0x030C0000
    Py_ssize_t size = Py_SIZE(number);
    if (size >= -1 && size <= 1) {
        return size * (long long)((PyLongObject *)number)->ob_digit[0];
    }
#else
    if (PyUnstable_Long_IsCompact((PyLongObject *)number)) {
        return (long long)PyUnstable_Long_CompactValue((PyLongObject *)number);
    }
#endif
    return PyLong_AsLongLongAndOverflow(number, overflow);
}

static int
enc_int(Buf *b, PyObject *number)
{
    int overflow = 0;
    long long value = int_value(number, &overflow);
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

static inline int enc_value(Buf *b, PyObject *value, int depth);

/* Where a payload's text holds the values of its top-level "content" and "callId" keys, which
 * a surface message is cut from (from == -1: no such key). */
typedef struct {
    Py_ssize_t content_from, content_to, call_from, call_to;
    int is_error; /* a tool result's "isError", once the shape check has read it */
} Spans;

static int
enc_dict_spans(Buf *b, PyObject *object, int depth, Spans *spans);

static int
enc_dict(Buf *b, PyObject *object, int depth)
{
    return enc_dict_spans(b, object, depth, NULL);
}

static int
enc_dict_spans(Buf *b, PyObject *object, int depth, Spans *spans)
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
        Py_ssize_t from = b->len;
        done = enc_value(b, item, depth + 1);
        if (done != ENC_OK) {
            return done;
        }
        if (spans != NULL) {
            Py_ssize_t length = PyUnicode_GET_LENGTH(key);
            const char *name = (const char *)PyUnicode_1BYTE_DATA(key);
            if (length == 7 && memcmp(name, "content", 7) == 0) {
                spans->content_from = from;
                spans->content_to = b->len;
            }
            else if (length == 6 && memcmp(name, "callId", 6) == 0) {
                spans->call_from = from;
                spans->call_to = b->len;
            }
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
static inline int
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

/* The plain text of ``value`` as new bytes; Py_None (a new reference) when it is not plain.
 * With ``spans``, a top-level object also says where its "content" and "callId" values are. */
static PyObject *
plain_bytes_spans(PyObject *value, Spans *spans)
{
    Buf b;
    buf_init(&b);
    int done = spans != NULL && PyDict_CheckExact(value) ? enc_dict_spans(&b, value, 1, spans)
                                                          : enc_value(&b, value, 1);
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
plain_bytes(PyObject *value)
{
    return plain_bytes_spans(value, NULL);
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
static PyObject *ReplaceType = NULL;     /* dsh_session.event.Replace */

static PyObject *one;
static PyObject *str_user_message, *str_assistant_message, *str_tool_result;
static PyObject *str_content, *str_type, *str_call_id, *str_is_error, *str_op, *str_replace, *str_start, *str_end;
static PyObject *str_append_at, *str_derive_in_python, *str_surface_op, *str_source_event_seqs, *str_type_arg, *str_data_arg;

/* Session's C methods (set at module init; their docstrings by configure). */
static PyMethodDef *session_method_defs = NULL;
static PyObject *method_docs[2] = {NULL, NULL}; /* kept alive: the methods' ml_doc point into them */

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *logged, *surface_types, *append_op, *canonical, *message_list, *replace, *append_doc, *derive_doc;
    if (!PyArg_ParseTuple(args, "OO!UO!OOUU:configure", &logged, &PyFrozenSet_Type, &surface_types, &append_op,
                          &PyLong_Type, &canonical, &message_list, &replace, &append_doc, &derive_doc)) {
        return NULL;
    }
    Py_XSETREF(ReplaceType, Py_NewRef(replace));
    Py_XSETREF(LoggedEventType, Py_NewRef(logged));
    Py_XSETREF(SurfaceTypes, Py_NewRef(surface_types));
    Py_XSETREF(AppendOp, Py_NewRef(append_op));
    Py_XSETREF(FormCanonical, Py_NewRef(canonical));
    Py_XSETREF(MessageListType, Py_NewRef(message_list));
    /* Each C method shows its Python twin's signature and docstring. */
    PyObject *docs[2] = {append_doc, derive_doc};
    for (int i = 0; i < 2; i++) {
        PyObject *encoded = PyUnicode_AsUTF8String(docs[i]);
        if (encoded == NULL) {
            return NULL;
        }
        session_method_defs[i].ml_doc = PyBytes_AS_STRING(encoded);
        Py_XSETREF(method_docs[i], encoded);
    }
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

/* The collector's traverse and clear of a state type, and its dealloc (a subclass's own
 * dealloc releases its type). */
#define GC_FUNCTIONS(prefix, Type, FIELDS)                \
    static int prefix##_traverse(Type *self, visitproc visit, void *arg) \
    {                                                     \
        FIELDS(VISIT_FIELD)                               \
        return 0;                                         \
    }                                                     \
    static int prefix##_clear(Type *self)                 \
    {                                                     \
        FIELDS(CLEAR_FIELD)                               \
        return 0;                                         \
    }                                                     \
    static void prefix##_dealloc(Type *self)              \
    {                                                     \
        PyTypeObject *kind = Py_TYPE(self);               \
        PyObject_GC_UnTrack(self);                        \
        prefix##_clear(self);                             \
        kind->tp_free((PyObject *)self);                  \
    }

GC_FUNCTIONS(surface, SurfaceCore, SURFACE_FIELDS)
GC_FUNCTIONS(session, SessionCore, SESSION_FIELDS)

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
plain_shape(PyObject *kind, PyObject *data, Spans *spans)
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
        spans->is_error = failed == Py_True;
        return call != NULL && PyUnicode_CheckExact(call) && (failed == Py_True || failed == Py_False);
    }
    return kind == str_user_message || kind == str_assistant_message;
}

/* Bytes joined from pieces: literals and slices of a payload's text. */
typedef struct {
    const char *at;
    Py_ssize_t len;
} Piece;

static PyObject *
joined(const Piece *pieces, int count)
{
    Py_ssize_t size = 0;
    for (int i = 0; i < count; i++) {
        size += pieces[i].len;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) {
        return NULL;
    }
    char *into = PyBytes_AS_STRING(out);
    for (int i = 0; i < count; i++) {
        memcpy(into, pieces[i].at, (size_t)pieces[i].len);
        into += pieces[i].len;
    }
    return out;
}

#define PIECE(text) {(text), (Py_ssize_t)(sizeof(text) - 1)}

/* The message a plain, well-shaped payload projects to, as new bytes (Py_None, new, for none),
 * cut from the payload's canonical ``text``: its "content" (and "callId") values are already
 * written there as the message writes them. */
static PyObject *
plain_message(PyObject *kind, PyObject *text, const Spans *spans)
{
    const char *payload = PyBytes_AS_STRING(text);
    Piece content = {payload + spans->content_from, spans->content_to - spans->content_from};
    if (kind == str_tool_result) {
        Piece call = {payload + spans->call_from, spans->call_to - spans->call_from};
        Piece parts[] = {
            PIECE("{\"role\":\"user\",\"content\":[{\"type\":\"tool-result\",\"toolCallId\":"),
            call,
            PIECE(",\"content\":"),
            content,
            PIECE(",\"isError\":"),
            {NULL, 0},
            PIECE("}]}"),
        };
        /* the payload's "isError" is true or false: the shape check saw to it */
        parts[5] = spans->is_error ? (Piece)PIECE("true") : (Piece)PIECE("false");
        return joined(parts, 7);
    }
    if (kind == str_assistant_message) {
        if (content.len == 2) { /* "[]": an empty assistant message has no message */
            return Py_NewRef(Py_None);
        }
        Piece parts[] = {PIECE("{\"role\":\"assistant\",\"content\":"), content, PIECE("}")};
        return joined(parts, 3);
    }
    Piece parts[] = {PIECE("{\"role\":\"user\",\"content\":"), content, PIECE("}")};
    return joined(parts, 3);
}

/* A provenance's seqs, sorted: for the duplicate check and a replace's coverage check. */
typedef struct {
    long long *sorted;
    Py_ssize_t n;
    long long small[64];
} RefSet;

static void
refset_free(RefSet *set)
{
    if (set->sorted != set->small) {
        PyMem_Free(set->sorted);
    }
    set->sorted = set->small;
}

static int
compare_seqs(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static void
sort_seqs(long long *seqs, Py_ssize_t n)
{
    if (n > 16) {
        qsort(seqs, (size_t)n, sizeof(long long), compare_seqs);
        return;
    }
    for (Py_ssize_t i = 1; i < n; i++) { /* insertion sort: a few seqs, the common case */
        long long value = seqs[i];
        Py_ssize_t j = i;
        while (j > 0 && seqs[j - 1] > value) {
            seqs[j] = seqs[j - 1];
            j--;
        }
        seqs[j] = value;
    }
}

static int
refset_has(const RefSet *set, long long value)
{
    Py_ssize_t low = 0, high = set->n;
    while (low < high) {
        Py_ssize_t mid = low + (high - low) / 2;
        if (set->sorted[mid] < value) {
            low = mid + 1;
        }
        else {
            high = mid;
        }
    }
    return low < set->n && set->sorted[low] == value;
}

/* The provenance as a new tuple when it is the common case -- a list or tuple of distinct
 * ints naming earlier events -- with its seqs sorted into ``set``; else Py_None (new); NULL
 * on error. ``set`` is to be freed in every case. */
static PyObject *
plain_provenance(PyObject *raw, Py_ssize_t seq, RefSet *set)
{
    set->sorted = set->small;
    set->n = 0;
    if (!PyList_CheckExact(raw) && !PyTuple_CheckExact(raw)) {
        return Py_NewRef(Py_None);
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(raw);
    if (n == 0) {
        return Py_NewRef(Py_None);
    }
    if (n > (Py_ssize_t)(sizeof(set->small) / sizeof(set->small[0]))) {
        set->sorted = PyMem_Malloc((size_t)n * sizeof(long long));
        if (set->sorted == NULL) {
            set->sorted = set->small;
            PyErr_NoMemory();
            return NULL;
        }
    }
    PyObject **items = PySequence_Fast_ITEMS(raw);
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
        set->sorted[i] = value;
    }
    sort_seqs(set->sorted, n);
    for (Py_ssize_t i = 1; i < n; i++) {
        if (set->sorted[i] == set->sorted[i - 1]) {
            return Py_NewRef(Py_None); /* a seq named twice */
        }
    }
    set->n = n;
    PyObject *refs = PyTuple_New(n);
    if (refs == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTuple_SET_ITEM(refs, i, Py_NewRef(items[i]));
    }
    return refs;
}

/* A replace's endpoints, borrowed, when ``op`` is a Replace or an exact dict
 * {"op": "replace", "start": s, "end": e} whose ends are safe ints; else 0. */
static int safe_int(PyObject *value);

static int
replace_ends(PyObject *op, PyObject **start, PyObject **end)
{
    if ((PyObject *)Py_TYPE(op) == ReplaceType && PyTuple_GET_SIZE(op) == 2) {
        *start = PyTuple_GET_ITEM(op, 0);
        *end = PyTuple_GET_ITEM(op, 1);
    }
    else if (PyDict_CheckExact(op) && PyDict_GET_SIZE(op) == 3) {
        PyObject *name = PyDict_GetItemWithError(op, str_op);
        if (name == NULL || !PyUnicode_CheckExact(name) || PyUnicode_Compare(name, str_replace) != 0) {
            return 0;
        }
        *start = PyDict_GetItemWithError(op, str_start);
        *end = PyDict_GetItemWithError(op, str_end);
        if (*start == NULL || *end == NULL) {
            return 0;
        }
    }
    else {
        return 0;
    }
    return safe_int(*start) && safe_int(*end);
}

/* The seqs a replace of start..end shadows, head to tail, as a new list, when both ends are
 * on the surface in that order; else Py_None (new); NULL on error (SurfaceManager._span). */
static PyObject *
shadowed_span(SurfaceCore *surface, PyObject *start, PyObject *end)
{
    PyObject *first = PyDict_GetItemWithError(surface->rank, start);
    PyObject *last = first == NULL ? NULL : PyDict_GetItemWithError(surface->rank, end);
    if (last == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    int after = PyObject_RichCompareBool(first, last, Py_GT);
    if (after != 0) {
        return after < 0 ? NULL : Py_NewRef(Py_None);
    }
    PyObject *span = PyList_New(0);
    if (span == NULL) {
        return NULL;
    }
    PyObject *seq = start;
    while (1) {
        if (PyList_Append(span, seq) < 0) {
            Py_DECREF(span);
            return NULL;
        }
        int done = PyObject_RichCompareBool(seq, end, Py_EQ);
        if (done != 0) {
            if (done < 0) {
                Py_DECREF(span);
                return NULL;
            }
            return span;
        }
        seq = PyDict_GetItemWithError(surface->next, seq);
        if (seq == NULL || seq == Py_None) { /* cannot be: the ranks say end follows start */
            Py_DECREF(span);
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_SystemError, "the surface's links do not reach a replace's end");
            }
            return NULL;
        }
    }
}

/* True when every seq of ``span`` is in ``set`` (a replace's provenance covers what it shadows). */
static int
covers(const RefSet *set, PyObject *span)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(span); i++) {
        long long value = PyLong_AsLongLong(PyList_GET_ITEM(span, i));
        if (value == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (!refset_has(set, value)) {
            return 0;
        }
    }
    return 1;
}

/* The node ``seq`` in place of the nodes of ``span`` (SurfaceManager._replace). */
static int
link_in_place(SurfaceCore *surface, PyObject *seq, PyObject *span)
{
    Py_ssize_t k = PyList_GET_SIZE(span);
    PyObject *first = PyList_GET_ITEM(span, 0), *last = PyList_GET_ITEM(span, k - 1);
    PyObject *before = PyDict_GetItemWithError(surface->prev, first);
    PyObject *after = PyDict_GetItemWithError(surface->next, last);
    PyObject *rank = PyDict_GetItemWithError(surface->rank, first);
    if (before == NULL || after == NULL || rank == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_SystemError, "a replace's span is not linked");
        }
        return -1;
    }
    Py_INCREF(before);
    Py_INCREF(after);
    Py_INCREF(rank);
    int failed = 0;
    for (Py_ssize_t i = 0; i < k && !failed; i++) {
        PyObject *gone = PyList_GET_ITEM(span, i);
        failed = PyDict_DelItem(surface->rank, gone) < 0 || PyDict_DelItem(surface->prev, gone) < 0 ||
                 PyDict_DelItem(surface->next, gone) < 0;
        if (!failed) {
            PyObject *dropped = PyDict_GetItemWithError(surface->messages, gone);
            failed = dropped == NULL ? PyErr_Occurred() != NULL : PyDict_DelItem(surface->messages, gone) < 0;
        }
    }
    failed = failed || PyDict_SetItem(surface->rank, seq, rank) < 0 || PyDict_SetItem(surface->prev, seq, before) < 0 ||
             PyDict_SetItem(surface->next, seq, after) < 0;
    if (!failed) {
        if (before == Py_None) {
            Py_XSETREF(surface->head, Py_NewRef(seq));
        }
        else {
            failed = PyDict_SetItem(surface->next, before, seq) < 0;
        }
    }
    if (!failed) {
        if (after == Py_None) {
            Py_XSETREF(surface->tail, Py_NewRef(seq));
        }
        else {
            failed = PyDict_SetItem(surface->prev, after, seq) < 0;
        }
    }
    if (!failed) {
        PyObject *generation = PyNumber_Add(surface->generation, one);
        failed = generation == NULL;
        if (!failed) {
            Py_SETREF(surface->generation, generation);
        }
    }
    Py_DECREF(before);
    Py_DECREF(after);
    Py_DECREF(rank);
    return failed ? -1 : 0;
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
        Py_XSETREF(surface->head, Py_NewRef(seq));
    }
    else if (PyDict_SetItem(surface->next, tail, seq) < 0) {
        return -1;
    }
    if (PyDict_SetItem(surface->prev, seq, tail) < 0 || PyDict_SetItem(surface->next, seq, Py_None) < 0) {
        return -1;
    }
    Py_XSETREF(surface->tail, Py_NewRef(seq));
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

/* The fast path declines: the Python path, ``Session._append_at``, admits the event from the
 * time read for it (and words any refusal). Steals ``time``. */
static PyObject *
decline(SessionCore *self, PyObject *time, PyObject *kind, PyObject *data, PyObject *op, PyObject *refs)
{
    PyObject *call[6] = {(PyObject *)self, time, kind, data, op, refs};
    PyObject *out = PyObject_VectorcallMethod(str_append_at, call, 6, NULL);
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
    long long number = int_value(value, &overflow);
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

/* Session.append of a surface event (``append`` or a replace) whose time has been read. Steals
 * ``time``. */
static PyObject *
append_surface_event(SessionCore *self, SurfaceCore *surface, PyObject *time, PyObject *given, PyObject *data,
                     PyObject *op, PyObject *raw_refs)
{
    PyObject *start = NULL, *end = NULL;
    int appending = PyUnicode_CheckExact(op) && PyUnicode_Compare(op, AppendOp) == 0;
    if (PyErr_Occurred() || (!appending && (raw_refs == Py_None || !replace_ends(op, &start, &end)))) {
        if (PyErr_Occurred()) {
            Py_DECREF(time);
            return NULL;
        }
        return decline(self, time, given, data, op, raw_refs);
    }
    /* the projection compares kinds by identity: the interned names */
    PyObject *kind = PyUnicode_Compare(given, str_user_message) == 0        ? str_user_message
                     : PyUnicode_Compare(given, str_assistant_message) == 0 ? str_assistant_message
                     : PyUnicode_Compare(given, str_tool_result) == 0       ? str_tool_result
                                                                             : NULL;
    if (kind == NULL || surface->rank == NULL || !PyDict_CheckExact(surface->rank) || surface->prev == NULL ||
        !PyDict_CheckExact(surface->prev) || surface->next == NULL || !PyDict_CheckExact(surface->next) ||
        surface->messages == NULL || !PyDict_CheckExact(surface->messages) || surface->tail == NULL ||
        surface->head == NULL || surface->generation == NULL || !PyLong_CheckExact(surface->generation)) {
        /* context and steering messages, or a surface not as the Python code keeps it */
        return decline(self, time, given, data, op, raw_refs);
    }
    Py_ssize_t at = PyList_GET_SIZE(self->log);
    Spans spans = {-1, -1, -1, -1, 0};
    RefSet set;
    PyObject *text = NULL, *refs = NULL, *span = NULL, *message = NULL, *seq = NULL, *replace = NULL;
    PyObject *event = NULL;
    int outcome = 0; /* 1: admitted, 0: declined, -1: error */
    text = plain_bytes_spans(data, &spans);
    set.sorted = set.small;
    if (text == NULL || text == Py_None) {
        outcome = text == NULL ? -1 : 0;
        goto done;
    }
    refs = raw_refs == Py_None ? Py_NewRef(Py_None) : plain_provenance(raw_refs, at, &set);
    if (refs == NULL || (raw_refs != Py_None && refs == Py_None)) {
        outcome = refs == NULL ? -1 : 0;
        goto done;
    }
    int shaped = plain_shape(kind, data, &spans);
    if (shaped <= 0) {
        outcome = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    if (!appending) {
        span = shadowed_span(surface, start, end);
        if (span == NULL || span == Py_None) {
            outcome = span == NULL ? -1 : 0;
            goto done;
        }
        int covered = covers(&set, span);
        if (covered <= 0) {
            outcome = covered;
            goto done;
        }
        PyObject *ends[2] = {start, end};
        replace = PyObject_Vectorcall(ReplaceType, ends, 2, NULL);
        if (replace == NULL) {
            outcome = -1;
            goto done;
        }
    }
    message = plain_message(kind, text, &spans);
    seq = message == NULL ? NULL : PyLong_FromSsize_t(at);
    if (seq == NULL) {
        outcome = -1;
        goto done;
    }
    PyObject *fields[8] = {given, seq, time, text, refs, appending ? AppendOp : replace, Py_None, FormCanonical};
    event = PyObject_Vectorcall(LoggedEventType, fields, 8, NULL);
    if (event == NULL || PyList_Append(self->log, event) < 0) {
        Py_CLEAR(event);
        outcome = -1;
        goto done;
    }
    /* The event is in the log: what follows is the fold, which cannot be refused. */
    outcome = 1;
    Py_XSETREF(surface->snapshot, Py_NewRef(Py_None));
    if ((appending ? link_at_tail(surface, seq) : link_in_place(surface, seq, span)) < 0 ||
        PyDict_SetItem(surface->messages, seq, message) < 0) {
        Py_CLEAR(event);
        outcome = -1;
    }
done:
    refset_free(&set);
    Py_XDECREF(text);
    Py_XDECREF(refs);
    Py_XDECREF(span);
    Py_XDECREF(message);
    Py_XDECREF(seq);
    Py_XDECREF(replace);
    if (outcome == 0) {
        return decline(self, time, given, data, op, raw_refs);
    }
    Py_DECREF(time);
    return outcome < 0 ? NULL : call_hook(self, event);
}

/* Session.append: the event admitted and appended -- here when it is one of the common cases,
 * else by the Python path (decline). ``given`` is the type as the caller gave it. */
static PyObject *
append_event(SessionCore *self, PyObject *given, PyObject *data, PyObject *op, PyObject *raw_refs)
{
    if (LoggedEventType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dsh_session._speedups is not configured");
        return NULL;
    }
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
        !PyUnicode_CheckExact(given) || PyUnicode_GET_LENGTH(given) == 0 || !safe_int(time)) {
        return decline(self, time, given, data, op, raw_refs);
    }
    int on_surface = PySet_Contains(SurfaceTypes, given);
    if (on_surface < 0) {
        Py_DECREF(time);
        return NULL;
    }
    if (!on_surface) {
        if (op != Py_None || raw_refs != Py_None) {
            return decline(self, time, given, data, op, raw_refs);
        }
        PyObject *text = plain_bytes(data);
        if (text == NULL || text == Py_None) {
            if (text == NULL) {
                Py_DECREF(time);
                return NULL;
            }
            Py_DECREF(text);
            return decline(self, time, given, data, op, raw_refs);
        }
        PyObject *seq = PyLong_FromSsize_t(PyList_GET_SIZE(log));
        PyObject *event = NULL;
        if (seq != NULL) {
            PyObject *fields[4] = {given, seq, time, text};
            event = PyObject_Vectorcall(LoggedEventType, fields, 4, NULL);
            Py_DECREF(seq);
        }
        Py_DECREF(text);
        Py_DECREF(time);
        if (event == NULL || PyList_Append(log, event) < 0) {
            Py_XDECREF(event);
            return NULL;
        }
        return call_hook(self, event);
    }
    return append_surface_event(self, surface, time, given, data, op, raw_refs);
}

/* ------------------------------------------------------------------------ */
/* The derived history.                                                        */

/* Session.derive_messages: here when every node it adds is projected already and no replace
 * happened since the last call, else the Python path (``_python_derive_messages``). */
static PyObject *
derive_in_python(SessionCore *self)
{
    return PyObject_CallMethodNoArgs((PyObject *)self, str_derive_in_python);
}

static PyObject *
session_derive_messages(SessionCore *self, PyObject *unused)
{
    SurfaceCore *surface = (SurfaceCore *)self->surface;
    if (surface == NULL || !PyObject_TypeCheck((PyObject *)surface, &SurfaceCoreType) ||
        surface->folded != Py_None || surface->generation == NULL || self->derived_generation == NULL ||
        self->messages == NULL || !PyList_CheckExact(self->messages) || self->derived_last == NULL ||
        surface->next == NULL || !PyDict_CheckExact(surface->next) || surface->messages == NULL ||
        !PyDict_CheckExact(surface->messages) || surface->head == NULL || MessageListType == NULL) {
        return derive_in_python(self);
    }
    int same = PyObject_RichCompareBool(surface->generation, self->derived_generation, Py_EQ);
    if (same < 0) {
        return NULL;
    }
    /* No replace since the last call: from the node after the last one derived. After one:
     * the cached messages linked anew, from the head, into a new list (views of the old one
     * keep what they showed). */
    PyObject *last = same ? self->derived_last : Py_None;
    PyObject *seq;
    if (last == Py_None) {
        seq = surface->head;
    }
    else {
        seq = PyDict_GetItemWithError(surface->next, last);
        if (seq == NULL) {
            return PyErr_Occurred() ? NULL : derive_in_python(self);
        }
    }
    /* First make sure every node to add has its message, so that nothing changes on a decline. */
    PyObject *probe = seq;
    while (probe != Py_None) {
        PyObject *text = PyDict_GetItemWithError(surface->messages, probe);
        probe = text == NULL ? NULL : PyDict_GetItemWithError(surface->next, probe);
        if (probe == NULL) {
            return PyErr_Occurred() ? NULL : derive_in_python(self);
        }
    }
    PyObject *messages = same ? Py_NewRef(self->messages) : PyList_New(0);
    if (messages == NULL) {
        return NULL;
    }
    if (!same) {
        Py_SETREF(self->messages, Py_NewRef(messages));
        Py_SETREF(self->derived_generation, Py_NewRef(surface->generation));
    }
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
    PyObject *out = PyErr_Occurred() ? NULL : PyObject_CallOneArg(MessageListType, messages);
    Py_DECREF(messages);
    return out;
}

/* The arguments of Session.append: (type, data, *, surface_op=None, source_event_seqs=None),
 * refused as Python refuses a call that does not fit them. */
static PyObject *
session_append(SessionCore *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *given[2] = {NULL, NULL};
    PyObject *op = Py_None, *refs = Py_None;
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "Session.append() takes 3 positional arguments but %zd were given",
                     nargs + 1);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        given[i] = args[i];
    }
    Py_ssize_t named = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < named; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        PyObject *value = args[nargs + i];
        if (name == str_surface_op || PyUnicode_Compare(name, str_surface_op) == 0) {
            op = value;
        }
        else if (name == str_source_event_seqs || PyUnicode_Compare(name, str_source_event_seqs) == 0) {
            refs = value;
        }
        else {
            int which = PyUnicode_Compare(name, str_type_arg) == 0   ? 0
                        : PyUnicode_Compare(name, str_data_arg) == 0 ? 1
                                                                     : -1;
            if (PyErr_Occurred()) {
                return NULL;
            }
            if (which < 0) {
                PyErr_Format(PyExc_TypeError, "Session.append() got an unexpected keyword argument '%U'", name);
                return NULL;
            }
            if (given[which] != NULL) {
                PyErr_Format(PyExc_TypeError, "Session.append() got multiple values for argument '%U'", name);
                return NULL;
            }
            given[which] = value;
        }
    }
    if (given[0] == NULL || given[1] == NULL) {
        if (given[0] == NULL && given[1] == NULL) {
            PyErr_SetString(PyExc_TypeError,
                            "Session.append() missing 2 required positional arguments: 'type' and 'data'");
        }
        else {
            PyErr_Format(PyExc_TypeError, "Session.append() missing 1 required positional argument: '%s'",
                         given[0] == NULL ? "type" : "data");
        }
        return NULL;
    }
    return append_event(self, given[0], given[1], op, refs);
}

/* The docstrings are the Python methods' own, handed over by configure. */
static PyMethodDef session_methods[] = {
    {"append", (PyCFunction)(void (*)(void))session_append, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"derive_messages", (PyCFunction)session_derive_messages, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------------------------ */
/* A load's run of database rows (persistence._bulk.rows_run).                */

/* The number screen of persistence._bulk.plain_payloads, over the joined payload texts: with
 * digits read as "0", exponent letters as "e", commas and newlines kept and every other byte
 * dropped, the text must hold neither "0e000" (an exponent of three digits or more) nor 200
 * zeros in a row (a number that could overflow a double). False when it might. */
static int
numbers_plain(const unsigned char *text, Py_ssize_t n)
{
    char window[4] = {0, 0, 0, 0}; /* the last four kept bytes, oldest first */
    Py_ssize_t zeros = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = text[i];
        char kept;
        if (c >= '0' && c <= '9') {
            kept = '0';
        }
        else if (c == 'e' || c == 'E') {
            kept = 'e';
        }
        else if (c == ',' || c == '\n') {
            kept = (char)c;
        }
        else {
            continue;
        }
        if (kept == '0') {
            if (++zeros >= 200) {
                return 0;
            }
            if (window[0] == '0' && window[1] == 'e' && window[2] == '0' && window[3] == '0') {
                return 0;
            }
        }
        else {
            zeros = 0;
        }
        window[0] = window[1];
        window[1] = window[2];
        window[2] = window[3];
        window[3] = kept;
    }
    return 1;
}

/* A payload text of ``n`` bytes that may nest deeper than MAX_DEPTH: longer than twice the
 * limit, with more opening brackets than it (admit_run's bound; false means surely not). */
static int
may_nest_too_deep(const char *text, Py_ssize_t n)
{
    if (n <= 2 * MAX_DEPTH) {
        return 0;
    }
    Py_ssize_t opening = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        opening += text[i] == '[' || text[i] == '{';
    }
    return opening > MAX_DEPTH;
}

/* rows_events(rows, start, kinds, kinds_limit, append_text, stored, raws_decode, provenance_decode): a run of
 * event rows (seq, type, time, data, source_event_seqs, surface_op) admitted at once --
 * (events, surface_indices, surface_texts) -- when every row is plain as rows_run and admit_run
 * define it, but for the surface payloads' shapes, which the caller checks on surface_texts;
 * else None, nothing changed but the memo (the caller reads the run the careful way). ``kinds``
 * is the loads' one-string-per-type memo, grown up to ``kinds_limit`` types; ``raws_decode`` reads a JSON array
 * into a list of raw values and ``provenance_decode`` a JSON array of ints (msgspec). */
static PyObject *
rows_events(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8 || !PyList_CheckExact(args[0]) || !PyLong_CheckExact(args[1]) || !PyDict_CheckExact(args[2]) ||
        !PyLong_CheckExact(args[3]) || !PyUnicode_CheckExact(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "rows_events(rows, start, kinds, kinds_limit, append_text, stored, raws, provenance)");
        return NULL;
    }
    if (LoggedEventType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dsh_session._speedups is not configured");
        return NULL;
    }
    PyObject *rows = args[0], *kinds = args[2], *append_text = args[4], *stored = args[5];
    PyObject *raws_decode = args[6], *provenance_decode = args[7];
    Py_ssize_t kinds_limit = PyLong_AsSsize_t(args[3]);
    if (kinds_limit == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(rows);
    int overflow = 0;
    long long start = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if ((start == -1 && PyErr_Occurred()) || overflow != 0 || start < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "start must be a seq");
        }
        return NULL;
    }
    Py_ssize_t *ends = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(count + 1));
    if (ends == NULL) {
        return PyErr_NoMemory();
    }
    Buf joined;
    buf_init(&joined);
    PyObject *events = NULL, *surface = NULL, *texts = NULL, *raws = NULL, *out = NULL;
    int declined = 0;
    /* The rows' columns: their types, the seqs, and the payloads joined into one JSON array. */
    if (BUF_LITERAL(&joined, "[") < 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < count && !declined; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != 6) {
            declined = 1;
            break;
        }
        PyObject *seq = PyTuple_GET_ITEM(row, 0), *kind = PyTuple_GET_ITEM(row, 1);
        PyObject *time = PyTuple_GET_ITEM(row, 2), *data = PyTuple_GET_ITEM(row, 3);
        PyObject *refs = PyTuple_GET_ITEM(row, 4), *op = PyTuple_GET_ITEM(row, 5);
        if (!PyLong_CheckExact(seq) || !PyUnicode_CheckExact(kind) || PyUnicode_GET_LENGTH(kind) == 0 ||
            !safe_int(time) || !PyUnicode_CheckExact(data) || (refs != Py_None && !PyUnicode_CheckExact(refs)) ||
            (op != Py_None && !PyUnicode_CheckExact(op))) {
            declined = 1;
            break;
        }
        long long at = PyLong_AsLongLongAndOverflow(seq, &overflow);
        if (overflow != 0 || at != start + i) {
            declined = 1;
            break;
        }
        int on_surface = PySet_Contains(SurfaceTypes, kind);
        if (on_surface < 0) {
            goto done;
        }
        if (on_surface ? (op == Py_None || PyUnicode_Compare(op, append_text) != 0)
                       : (op != Py_None || refs != Py_None)) {
            declined = 1; /* not an append, or a surface field on a log-only row */
            break;
        }
        Py_ssize_t size;
        const char *utf8 = PyUnicode_AsUTF8AndSize(data, &size);
        if (utf8 == NULL) { /* a lone surrogate: never in a database's text, and not plain */
            PyErr_Clear();
            declined = 1;
            break;
        }
        if (i > 0 && BUF_LITERAL(&joined, ",") < 0) {
            goto done;
        }
        if (buf_write(&joined, utf8, size) < 0) {
            goto done;
        }
        ends[i] = joined.len;
    }
    if (declined || BUF_LITERAL(&joined, "]") < 0) {
        goto done;
    }
    if (!numbers_plain((const unsigned char *)joined.data, joined.len)) {
        declined = 1;
        goto done;
    }
    /* Every data column is one JSON value JSON.parse reads as it is: the array parses, and each
     * of its values is exactly as long as its column (so no blank between them). */
    PyObject *array = PyBytes_FromStringAndSize(joined.data, joined.len);
    if (array == NULL) {
        goto done;
    }
    raws = PyObject_CallOneArg(raws_decode, array);
    Py_DECREF(array);
    if (raws == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_RecursionError)) {
            goto done; /* msgspec's DecodeError is a ValueError */
        }
        PyErr_Clear();
        declined = 1;
        goto done;
    }
    if (!PyList_CheckExact(raws) || PyList_GET_SIZE(raws) != count) {
        declined = 1;
        goto done;
    }
    events = PyList_New(count);
    surface = PyList_New(0);
    texts = PyList_New(0);
    if (events == NULL || surface == NULL || texts == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        PyObject *seq = PyTuple_GET_ITEM(row, 0), *kind = PyTuple_GET_ITEM(row, 1);
        PyObject *time = PyTuple_GET_ITEM(row, 2), *refs = PyTuple_GET_ITEM(row, 4);
        Py_ssize_t from = i == 0 ? 1 : ends[i - 1] + 1;
        PyObject *raw = PyList_GET_ITEM(raws, i);
        Py_ssize_t raw_size = PyObject_Length(raw);
        if (raw_size < 0) {
            goto done;
        }
        if (raw_size != ends[i] - from || may_nest_too_deep(joined.data + from, ends[i] - from)) {
            declined = 1;
            goto done;
        }
        PyObject *shared = PyDict_GetItemWithError(kinds, kind); /* one str object per type */
        if (shared == NULL) {
            if (PyErr_Occurred()) {
                goto done;
            }
            if (PyDict_GET_SIZE(kinds) < kinds_limit) {
                if (PyDict_SetItem(kinds, kind, kind) < 0) {
                    goto done;
                }
                shared = kind;
            }
        }
        PyObject *text = PyBytes_FromStringAndSize(joined.data + from, ends[i] - from);
        if (text == NULL) {
            goto done;
        }
        PyObject *given = Py_None, *op = Py_None;
        PyObject *tuple = NULL;
        if (PyTuple_GET_ITEM(row, 5) != Py_None) { /* a surface row (an append: checked above) */
            op = AppendOp;
            if (refs != Py_None) {
                PyObject *listed = PyObject_CallOneArg(provenance_decode, refs);
                if (listed == NULL) {
                    Py_DECREF(text);
                    if (!PyErr_ExceptionMatches(PyExc_ValueError) &&
                        !PyErr_ExceptionMatches(PyExc_RecursionError)) {
                        goto done;
                    }
                    PyErr_Clear();
                    declined = 1;
                    goto done;
                }
                RefSet set;
                tuple = plain_provenance(listed, start + i, &set);
                refset_free(&set);
                Py_DECREF(listed);
                if (tuple == NULL || tuple == Py_None) {
                    Py_DECREF(text);
                    Py_XDECREF(tuple);
                    if (tuple == NULL) {
                        goto done;
                    }
                    declined = 1;
                    goto done;
                }
                given = tuple;
            }
            PyObject *index = PyLong_FromSsize_t(i);
            int failed = index == NULL || PyList_Append(surface, index) < 0 || PyList_Append(texts, text) < 0;
            Py_XDECREF(index);
            if (failed) {
                Py_DECREF(text);
                Py_XDECREF(tuple);
                goto done;
            }
        }
        PyObject *fields[8] = {shared == NULL ? kind : shared, seq, time, text, given, op, Py_None, stored};
        PyObject *event = PyObject_Vectorcall(LoggedEventType, fields, 8, NULL);
        Py_DECREF(text);
        Py_XDECREF(tuple);
        if (event == NULL) {
            goto done;
        }
        PyList_SET_ITEM(events, i, event);
    }
    out = PyTuple_Pack(3, events, surface, texts);
done:
    PyMem_Free(ends);
    buf_free(&joined);
    Py_XDECREF(events);
    Py_XDECREF(surface);
    Py_XDECREF(texts);
    Py_XDECREF(raws);
    if (out == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE; /* declined */
    }
    return out;
}

/* ------------------------------------------------------------------------ */

static PyMethodDef speedups_methods[] = {
    {"plain_text", (PyCFunction)plain_text, METH_O,
     PyDoc_STR("plain_text(value) -> bytes | None: the canonical text of a plain JSON value, "
               "or None when the careful pass must decide.")},
    {"rows_events", (PyCFunction)(void (*)(void))rows_events, METH_FASTCALL,
     PyDoc_STR("rows_events(rows, start, kinds, kinds_limit, append_text, stored, raws_decode, provenance_decode) -> "
               "(events, surface_indices, surface_texts) | None")},
    {"configure", (PyCFunction)configure, METH_VARARGS,
     PyDoc_STR("configure(LoggedEvent, SURFACE_TYPES, APPEND, CANONICAL, MessageList)")},
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
        intern(&str_is_error, "isError") < 0 || intern(&str_op, "op") < 0 || intern(&str_replace, "replace") < 0 ||
        intern(&str_start, "start") < 0 || intern(&str_end, "end") < 0 || intern(&str_append_at, "_append_at") < 0 ||
        intern(&str_derive_in_python, "_python_derive_messages") < 0 ||
        intern(&str_surface_op, "surface_op") < 0 || intern(&str_source_event_seqs, "source_event_seqs") < 0 ||
        intern(&str_type_arg, "type") < 0 || intern(&str_data_arg, "data") < 0) {
        return NULL;
    }
    SessionCoreType.tp_methods = session_methods;
    session_method_defs = session_methods;
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
