/* ML-KEM on the ACC through caller-supplied program images; see pqc.h. */
#include <string.h>
#include <generated/mem.h>

#ifdef ACC_BASE   /* lib/ is linked into every program; SoC variants without the ACC skip it */
#define PQC_MLKEM_LAYOUT_TABLE   /* the layout rows of pqc_mlkem_layout.h (pqc_layout.py) */
#include "pqc.h"

static const struct pqc_image *images[PQC_MLKEM_OPS][PQC_MLKEM_PARAMS];
static struct pqc_info last;
static uint32_t max_polls;   /* 0: acc.c's default bound */
/* The program in IMEM: its image and acc_imem_generation() right after this file loaded it. */
static struct { const struct pqc_image *img; uint32_t generation; int valid; } resident;

static const struct pqc_mlkem_layout *find_layout(unsigned op, unsigned param)
{
    for (unsigned i = 0; i < PQC_MLKEM_LAYOUTS; i++)
        if (pqc_mlkem_layouts[i].op == op && pqc_mlkem_layouts[i].param == param)
            return &pqc_mlkem_layouts[i];
    return NULL;
}

int pqc_mlkem_set_image(const struct pqc_image *img)
{
    if (img == NULL || find_layout(img->op, img->param) == NULL)
        return PQC_ERR_PARAM;
    if (resident.valid && images[img->op][pqc_mlkem_param_index(img->param)] == resident.img)
        resident.valid = 0;
    images[img->op][pqc_mlkem_param_index(img->param)] = img;
    return PQC_OK;
}

void pqc_mlkem_clear_image(unsigned op, unsigned param)
{
    int p = pqc_mlkem_param_index(param);
    if (op < PQC_MLKEM_OPS && p >= 0) {
        if (resident.img == images[op][p])
            resident.valid = 0;
        images[op][p] = NULL;
    }
}

void pqc_forget_program(void) { resident.valid = 0; }
void pqc_set_max_polls(uint32_t n) { max_polls = n; }
const struct pqc_info *pqc_last(void) { return &last; }

const char *pqc_status_name(int status)
{
    static const char *const names[] = {"OK", "PARAM", "IMAGE_MISSING", "IMAGE_WRONG", "ACC",
                                        "EK_INVALID", "DK_HASH_MISMATCH", "TIMEOUT", "BUSY",
                                        "STATUS"};
    return status >= 0 && (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "?";
}

static uint32_t fnv(uint32_t h, uint32_t w) { return (h ^ w) * PQC_FNV_PRIME; }

static uint32_t fnv_bytes(uint32_t h, const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i + 4 <= len; i += 4)
        h = fnv(h, p[i] | p[i + 1] << 8 | p[i + 2] << 16 | (uint32_t)p[i + 3] << 24);
    return h;
}

/* The image is the layout's: same program size and, when it is to be loaded, the same FNV-1a
 * of its words; constant tables of the same total size and sum. */
static int image_matches(const struct pqc_image *img, const struct pqc_mlkem_layout *lay,
                         int check_program)
{
    if (img->op != lay->op || img->param != lay->param || img->imem_words != lay->imem_words ||
        (img->consts == NULL && img->n_consts))
        return 0;
    if (check_program && img->imem != NULL) {
        uint32_t h = PQC_FNV_INIT;
        for (uint32_t i = 0; i < img->imem_words; i++)
            h = fnv(h, img->imem[i]);
        if (h != lay->imem_fnv)
            return 0;
    }
    uint32_t h = PQC_FNV_INIT, bytes = 0;
    for (uint32_t i = 0; i < img->n_consts; i++) {
        const struct pqc_segment *s = &img->consts[i];
        if (s->len % 4 || (s->data == NULL && s->len))
            return 0;
        h = fnv_bytes(fnv(fnv(h, s->addr), s->len), s->data, s->len);
        bytes += s->len;
    }
    return bytes == lay->const_bytes && h == lay->const_fnv;
}

static int from_acc(int rc);

/* IMEM words 0 .. imem_words-1 have the layout's FNV-1a sum. */
static int imem_holds(const struct pqc_mlkem_layout *lay)
{
    uint32_t buf[32], h = PQC_FNV_INIT;
    for (uint32_t i = 0; i < lay->imem_words; i += 32) {
        uint32_t n = lay->imem_words - i < 32 ? lay->imem_words - i : 32;
        int st = from_acc(acc_read_imem(i, buf, n));
        if (st != PQC_OK)
            return st;
        for (uint32_t j = 0; j < n; j++)
            h = fnv(h, buf[j]);
    }
    return h == lay->imem_fnv ? PQC_OK : PQC_ERR_IMAGE_WRONG;
}

static int from_acc(int rc)
{
    if (rc != ACC_OK && last.acc_rc == ACC_OK)   /* the first failing driver call */
        last.acc_rc = rc;
    switch (rc) {
    case ACC_OK: return PQC_OK;
    case ACC_ERR_PROGRAM: return PQC_ERR_ACC;
    case ACC_ERR_TIMEOUT: return PQC_ERR_TIMEOUT;
    default: return PQC_ERR_BUSY;   /* ACC_ERR_BUSY, or ACC_ERR_ARG (layout checked: not reached) */
    }
}

/* One run of (op, param): in[i] -> DMEM lay->in[i]; DMEM lay->out[i] -> out[i]. */
static int run(unsigned op, unsigned param, const uint8_t *const in[2], uint8_t *const out[2])
{
    memset(&last, 0, sizeof last);
    const struct pqc_mlkem_layout *lay = find_layout(op, param);
    if (lay == NULL)
        return last.status = PQC_ERR_PARAM;
    const struct pqc_image *img = images[op][pqc_mlkem_param_index(param)];
    if (img == NULL)
        return last.status = PQC_ERR_IMAGE_MISSING;
    int load = !resident.valid || resident.img != img ||
               resident.generation != acc_imem_generation();
    if (!image_matches(img, lay, load) || 4 * lay->imem_words > acc_imem_size() ||
        lay->dmem_end > acc_dmem_size())
        return last.status = PQC_ERR_IMAGE_WRONG;
    for (int i = 0; i < 2; i++)
        if (lay->in[i].len && in[i] == NULL)
            return last.status = PQC_ERR_PARAM;
    for (int i = 0; i < 2; i++)
        if (lay->out[i].len && out[i] == NULL)
            return last.status = PQC_ERR_PARAM;

    /* From here on the ACC may hold secrets: every path ends with the wipe below. */
    int st = from_acc(acc_wipe(max_polls));
    if (st == PQC_OK && load) {
        resident.valid = 0;
        if (img->imem != NULL) {
            st = from_acc(acc_load_program(img->imem, img->imem_words));
            last.loaded = st == PQC_OK;
        } else {   /* loaded by someone else (the host, the management core): check it */
            st = imem_holds(lay);
            last.checked_imem = 1;
        }
        if (st == PQC_OK) {
            resident.img = img;
            resident.generation = acc_imem_generation();
            resident.valid = 1;
        }
    }
    for (uint32_t i = 0; st == PQC_OK && i < img->n_consts; i++)
        st = from_acc(acc_write_dmem(img->consts[i].addr, img->consts[i].data, img->consts[i].len));
    for (int i = 0; st == PQC_OK && i < 2; i++)
        if (lay->in[i].len)
            st = from_acc(acc_write_dmem(lay->in[i].addr, in[i], lay->in[i].len));
    if (st == PQC_OK)
        st = from_acc(acc_run(&last.acc, max_polls));
    if (st == PQC_OK)   /* the program's status word: its FIPS 203 section 7 input checks */
        st = from_acc(acc_read_dmem(lay->status_addr, &last.status_word, 4));
    if (st == PQC_OK) {
        switch (last.status_word) {
        case PQC_MLKEM_STATUS_OK: break;
        case PQC_MLKEM_STATUS_EK_INVALID: st = PQC_ERR_EK_INVALID; break;
        case PQC_MLKEM_STATUS_DK_HASH_MISMATCH: st = PQC_ERR_DK_HASH_MISMATCH; break;
        default: st = PQC_ERR_STATUS; break;   /* NOT_RUN (0) included: never taken as OK */
        }
    }
    for (int i = 0; st == PQC_OK && i < 2; i++)
        if (lay->out[i].len)
            st = from_acc(acc_read_dmem(lay->out[i].addr, out[i], lay->out[i].len));
    int w = from_acc(acc_wipe(max_polls));   /* aborts a program still running (timeout) */
    if (st == PQC_OK && w != PQC_OK)
        st = w;
    if (st != PQC_OK) {
        for (int i = 0; i < 2; i++)   /* no partial output of a failed call */
            if (lay->out[i].len)
                memset(out[i], 0, lay->out[i].len);
        /* After an ACC error or a timeout the program in IMEM is suspect: reload it next time. */
        if (st == PQC_ERR_ACC || st == PQC_ERR_TIMEOUT)
            resident.valid = 0;
    }
    return last.status = st;
}

int pqc_mlkem_keypair(unsigned param, const uint8_t *d, const uint8_t *z, uint8_t *ek, uint8_t *dk)
{
    const uint8_t *in[2] = {d, z};
    uint8_t *out[2] = {ek, dk};
    return run(PQC_MLKEM_KEYGEN, param, in, out);
}

int pqc_mlkem_encaps(unsigned param, const uint8_t *ek, const uint8_t *m, uint8_t *K, uint8_t *c)
{
    const uint8_t *in[2] = {ek, m};
    uint8_t *out[2] = {K, c};
    return run(PQC_MLKEM_ENCAPS, param, in, out);
}

int pqc_mlkem_decaps(unsigned param, const uint8_t *dk, const uint8_t *c, uint8_t *K)
{
    const uint8_t *in[2] = {dk, c};
    uint8_t *out[2] = {K, NULL};
    return run(PQC_MLKEM_DECAPS, param, in, out);
}

#endif
