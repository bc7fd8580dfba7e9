int main(void) { return 2; } /* placeholder */
