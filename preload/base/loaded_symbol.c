/* loaded_symbol.c — loaded_symbol.h: a GNU hash lookup in each object. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "base/loaded_symbol.h"

struct query {
    const char *name;
    uint32_t hash;
    int may;
};

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (uint8_t)*s;
    return h;
}

/* The loader rebases most of an object's dynamic entries in place; the
 * vDSO's stay relative to its base. */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) p)
{
    return p < info->dlpi_addr ? info->dlpi_addr + p : p;
}

/* 1: defined here or cannot tell; 0: not defined here. */
static int object_may_define(const struct dl_phdr_info *info, const struct query *q)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return 0;               /* nothing exported */
    const uint32_t *gh = NULL;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_GNU_HASH)
            gh = (const uint32_t *)dyn_addr(info, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_SYMTAB)
            symtab = (const ElfW(Sym) *)dyn_addr(info, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_STRTAB)
            strtab = (const char *)dyn_addr(info, dyn->d_un.d_ptr);
    }
    if (!gh || !symtab || !strtab)
        return 1;
    uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2], shift = gh[3];
    if (!nbuckets || !bloom_size)
        return nbuckets != 0;
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gh + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    const unsigned bits = sizeof(ElfW(Addr)) * 8;
    uint32_t h = q->hash;
    ElfW(Addr) word = bloom[(h / bits) % bloom_size];
    ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) |
                      ((ElfW(Addr))1 << ((h >> shift) % bits));
    if ((word & mask) != mask)
        return 0;
    uint32_t sym = buckets[h % nbuckets];
    if (sym < symoffset)
        return 0;
    for (;; sym++) {
        uint32_t h2 = chain[sym - symoffset];
        if ((h | 1) == (h2 | 1) && symtab[sym].st_shndx != SHN_UNDEF &&
            strcmp(q->name, strtab + symtab[sym].st_name) == 0)
            return 1;
        if (h2 & 1)
            return 0;
    }
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct query *q = arg;
    if (object_may_define(info, q)) {
        q->may = 1;
        return 1;               /* stop */
    }
    return 0;
}

int loaded_symbol_may_exist(const char *name)
{
    struct query q = { name, gnu_hash(name), 0 };
    dl_iterate_phdr(visit, &q);
    return q.may;
}
