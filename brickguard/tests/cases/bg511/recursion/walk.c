#include <stdint.h>

struct node { struct node *left, *right; int v; };
typedef struct { void (*done)(int); void (*error)(int); void (*idle)(int);
                 void (*ready)(int); } dev_t;
typedef void (*handler_t)(int);
static dev_t dev;
extern handler_t handlers[4];
volatile int sink;

static int depth(const struct node *n)
{
    if (!n)
        return 0;
    int l = depth(n->left);   /* expect: BG511 */
    int r = depth(n->right);   /* expect: BG511 */
    return 1 + (l > r ? l : r);
}

static void on_done(int x) { sink = x; }

static void set_ready(handler_t cb)
{
    dev.ready = cb;      /* whatever the callers pass: on_done */
}

static void finish(int code)
{
    dev.done(code);      /* on_done is stored into .done: bounded */
    dev.error(code);   /* expect: BG511 */
    if (dev.idle)
        dev.idle(code);  /* nothing is ever stored into .idle: it stays NULL */
    dev.ready(code);     /* set_ready(on_done): bounded */
}

int main(void)
{
    static struct node root;
    dev.done = on_done;
    set_ready(on_done);
    dev.error = handlers[sink & 3];   /* a table entry: which function is not known */
    finish(depth(&root));
    return 0;
}
