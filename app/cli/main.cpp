#include <cstdio>
int main() { std::puts("raidscope-cli: under construction"); return 0; }
