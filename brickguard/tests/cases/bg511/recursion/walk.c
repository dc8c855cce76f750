#include <stdint.h>

struct node { struct node *left, *right; int v; };
typedef struct { void (*done)(int); void (*error)(int); } dev_t;
static dev_t dev;
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

static void finish(int code)
{
    dev.done(code);      /* on_done is stored into .done: bounded */
    dev.error(code);   /* expect: BG511 */
}

int main(void)
{
    static struct node root;
    dev.done = on_done;
    finish(depth(&root));
    return 0;
}
