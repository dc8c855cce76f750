/* A Linux driver's hard-IRQ handler (found by request_irq) must not sleep. */
#include <stddef.h>

typedef unsigned int gfp_t;
#define GFP_KERNEL 0x0cc0u
#define GFP_ATOMIC 0x0820u
typedef int irqreturn_t;
#define IRQ_HANDLED 1
struct mutex { int owner; };
struct device { int id; };
void *kmalloc(size_t size, gfp_t flags);
void kfree(const void *p);
void msleep(unsigned int ms);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
int printk(const char *fmt, ...);
int request_irq(unsigned int irq, irqreturn_t (*handler)(int, void *), unsigned long flags,
                const char *name, void *dev);

static struct mutex cfg_lock;

static void reset_chip(void)
{
    msleep(10);                               /* expect: BG110 */
}

static irqreturn_t mydev_irq(int irq, void *dev)
{
    void *a = kmalloc(64, GFP_ATOMIC);
    void *b = kmalloc(64, GFP_KERNEL);        /* expect: BG110 */
    (void)irq;
    (void)dev;
    printk("irq\n");
    mutex_lock(&cfg_lock);                    /* expect: BG110 */
    reset_chip();
    kfree(a);
    kfree(b);
    return IRQ_HANDLED;
}

int mydev_probe(struct device *d)
{
    mutex_lock(&cfg_lock);
    msleep(1);
    mutex_unlock(&cfg_lock);
    return request_irq(17, mydev_irq, 0, "mydev", d);
}
