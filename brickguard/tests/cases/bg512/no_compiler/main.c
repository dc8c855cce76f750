volatile int sink;

int main(void)   /* expect: BG512 */
{
    sink = 1;
    return 0;
}
