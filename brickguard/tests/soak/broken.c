void broken(void) { this is not C; }
