/* SPDX-FileCopyrightText: 2026 pqsoc contributors */
/* SPDX-License-Identifier: Apache-2.0 */
/* ML-KEM and ML-DSA on the ACC through caller-supplied program images; see pqc.h. */
#include <string.h>
#include <generated/mem.h>

#ifdef ACC_BASE   /* lib/ is linked into every program; SoC variants without the ACC skip it */
#define PQC_MLKEM_LAYOUT_TABLE   /* the layout rows of pqc_mlkem_layout.h (pqc_layout.py) */
#define PQC_MLDSA_LAYOUT_TABLE   /* and of pqc_mldsa_layout.h (pqc_mldsa_layout.py) */
#include "pqc.h"
#include "acc.h"
#include "drbg.h"
#include "kmac.h"

static const struct pqc_image *images[PQC_MLKEM_OPS][PQC_MLKEM_PARAMS];
static const struct pqc_image *dsa_images[PQC_MLDSA_OPS][PQC_MLDSA_PARAMS];
static struct pqc_info last;
static uint32_t timeout;     /* cycles; 0: acc.c's default bound */
/* The program in IMEM: its image and acc_imem_generation() right after this file loaded it. */
static struct { const struct pqc_image *img; uint32_t generation; int valid; } resident;
static unsigned entropy_words;   /* DRBG words into the RND pool after the wipe, before the run */

/* Images whose program and constant tables matched their layout's FNV-1a sums since they were
 * registered: the sums (~40 CPU cycles a word of ROM) are taken at an image's first use (which
 * loads its program), not at every call or reload (registered images must not change;
 * set_image / clear_image forget them). */
#define CHECKED_MAX 8u
static const struct pqc_image *checked[CHECKED_MAX];
static unsigned checked_next;

static const struct pqc_image *last_checked;   /* the image of the last call: looked at first */

static int was_checked(const struct pqc_image *img)
{
    if (img == last_checked)
        return 1;
    for (unsigned i = 0; i < CHECKED_MAX; i++)
        if (checked[i] == img)
            return last_checked = img, 1;
    return 0;
}

static void mark_checked(const struct pqc_image *img)
{
    if (!was_checked(img)) {
        checked[checked_next] = img;
        checked_next = (checked_next + 1) % CHECKED_MAX;
    }
}

static void forget_checked(const struct pqc_image *img)
{
    if (img == last_checked)
        last_checked = NULL;
    for (unsigned i = 0; i < CHECKED_MAX; i++)
        if (checked[i] == img)
            checked[i] = NULL;
}

/* The generated tables list the sets of each op in order: row op * sets + set index, looked at
 * first (the search below if a table ever differs). */
static const struct pqc_mlkem_layout *find_layout(unsigned op, unsigned param)
{
    int p = pqc_mlkem_param_index(param);
    unsigned row = op * PQC_MLKEM_PARAMS + (unsigned)p;
    if (p >= 0 && row < PQC_MLKEM_LAYOUTS && pqc_mlkem_layouts[row].op == op &&
        pqc_mlkem_layouts[row].param == param)
        return &pqc_mlkem_layouts[row];
    for (unsigned i = 0; i < PQC_MLKEM_LAYOUTS; i++)
        if (pqc_mlkem_layouts[i].op == op && pqc_mlkem_layouts[i].param == param)
            return &pqc_mlkem_layouts[i];
    return NULL;
}

int pqc_mlkem_set_image(const struct pqc_image *img)
{
    int p = img == NULL ? -1 : pqc_mlkem_param_index(img->param);
    if (p < 0 || find_layout(img->op, img->param) == NULL)
        return PQC_ERR_PARAM;
    const struct pqc_image **slot = &images[img->op][p];
    if (resident.valid && *slot == resident.img)
        resident.valid = 0;
    forget_checked(*slot);
    forget_checked(img);
    *slot = img;
    return PQC_OK;
}

void pqc_mlkem_clear_image(unsigned op, unsigned param)
{
    int p = pqc_mlkem_param_index(param);
    if (op < PQC_MLKEM_OPS && p >= 0) {
        if (resident.img == images[op][p])
            resident.valid = 0;
        forget_checked(images[op][p]);
        images[op][p] = NULL;
    }
}

void pqc_forget_program(void) { resident.valid = 0; }
void pqc_set_timeout(uint32_t cycles) { timeout = cycles; }
const struct pqc_info *pqc_last(void) { return &last; }

const char *pqc_status_name(int status)
{
    static const char *const names[] = {"OK", "PARAM", "IMAGE_MISSING", "IMAGE_WRONG", "ACC",
                                        "EK_INVALID", "DK_HASH_MISMATCH", "TIMEOUT", "BUSY",
                                        "STATUS", "MLDSA_INVALID", "LENGTH", "RANDOM", "KMAC"};
    return status >= 0 && (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "?";
}

static uint32_t fnv(uint32_t h, uint32_t w) { return (h ^ w) * PQC_FNV_PRIME; }

static uint32_t fnv_bytes(uint32_t h, const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i + 4 <= len; i += 4)
        h = fnv(h, p[i] | p[i + 1] << 8 | p[i + 2] << 16 | (uint32_t)p[i + 3] << 24);
    return h;
}

/* What begin / finish check an image against: one row of either generated layout. */
struct program {
    unsigned op, param;
    uint32_t imem_words, imem_fnv, const_bytes, const_fnv, dmem_end;
};

/* The call's DMA list (acc.h); static: the ACC reads it over the bus. */
static struct acc_list list;

static int from_acc(int rc);

/* The image is the layout's: same program size and, when it is to be loaded, the same FNV-1a
 * of its words; constant tables of the same total size and sum. */
static int image_matches(const struct pqc_image *img, const struct program *lay,
                         int check_program)
{
    if (img->op != lay->op || img->param != lay->param || img->imem_words != lay->imem_words ||
        (img->consts == NULL && img->n_consts))
        return 0;
    if (was_checked(img))   /* program and constants matched at its first use */
        return 1;
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
    if (bytes != lay->const_bytes || h != lay->const_fnv)
        return 0;
    mark_checked(img);
    return 1;
}

static int from_acc(int rc);

/* IMEM words 0 .. imem_words-1 have the layout's FNV-1a sum. */
static int imem_holds(const struct program *lay)
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
    case ACC_ERR_DMA: return PQC_ERR_ACC;   /* a DMA transfer failed (pqc_last()->acc_rc) */
    case ACC_ERR_TIMEOUT: return PQC_ERR_TIMEOUT;
    default: return PQC_ERR_BUSY;   /* ACC_ERR_BUSY, or ACC_ERR_ARG (the list is checked first: not reached) */
    }
}

/* A call is begin(), the caller's inputs (acc_list_in), acc_list_run, its outputs
 * (acc_list_out), then finish(): one DMA list (acc.h) with the constant tables, the run, the
 * status word and the wipe.
 *
 * begin: img checked against p (only when it is to be loaded: the resident program was
 * checked then, and is the same image, so the same op and set), the list begun with the
 * constant tables. *load: the program goes into IMEM in finish(). */
static int begin(const struct pqc_image *img, const struct program *p, int *load)
{
    if (pqc_mldsa_mu_streaming())   /* the program's side-load would wait for the block */
        return last.status = PQC_ERR_BUSY;
    if (img == NULL)
        return last.status = PQC_ERR_IMAGE_MISSING;
    *load = !resident.valid || resident.img != img ||
            resident.generation != acc_imem_generation();
    if (*load && (!image_matches(img, p, 1) || 4 * p->imem_words > acc_imem_size() ||
                  p->dmem_end > acc_dmem_size()))
        return last.status = PQC_ERR_IMAGE_WRONG;
    acc_list_init(&list);
    for (uint32_t i = 0; i < img->n_consts; i++)
        acc_list_in(&list, img->consts[i].addr, img->consts[i].data, img->consts[i].len);
    return PQC_OK;
}

/* The wipe before (skipped when the ACC reports nothing since the last: an idle ACC is
 * clean), the program into IMEM if it is not resident, the list (acc_list_call; it wipes on
 * any failure, and its own last step is the wipe), the status word at status_addr (none:
 * PQC_MLDSA_NO_ADDR) judged by judge(). On a failure from the wipe on, every output of the
 * list is zero-filled (no partial result; the status word is kept for pqc_last()). */
static int finish(const struct program *p, const struct pqc_image *img, int load,
                  uint32_t status_addr, int (*judge)(uint32_t status_word))
{
    if (status_addr != PQC_MLDSA_NO_ADDR)
        acc_list_out(&list, status_addr, &last.status_word, 4);
    if (list.bad)   /* an entry past DMEM (a variable M') or more than the list holds */
        return last.status = PQC_ERR_LENGTH;

    /* From here on the ACC may hold secrets: every path ends with a wipe. */
    int st = acc_clean() && acc_idle() ? PQC_OK : from_acc(acc_wipe(0));
    if (st == PQC_OK && load) {
        resident.valid = 0;
        if (img->imem != NULL) {
            st = from_acc(acc_load_program(img->imem, img->imem_words));
            last.loaded = st == PQC_OK;
        } else {   /* loaded by someone else (the host, the management core): check it */
            st = imem_holds(p);
            last.checked_imem = 1;
        }
        if (st == PQC_OK) {
            resident.img = img;
            resident.generation = acc_imem_generation();
            resident.valid = 1;
        }
    }
    if (st == PQC_OK && entropy_words)   /* the wipe empties the pool: after it */
        st = pqc_feed_acc_entropy(entropy_words);
    if (st == PQC_OK)
        st = from_acc(acc_list_call(&list, timeout, &last.acc));
    else
        acc_wipe(0);
    if (st == PQC_OK && status_addr != PQC_MLDSA_NO_ADDR)
        st = judge(last.status_word);
    if (st != PQC_OK) {
        uint32_t word = last.status_word;
        acc_list_zero_outputs(&list);
        last.status_word = word;
        /* After an ACC error or a timeout the program in IMEM is suspect: reload it next time. */
        if (st == PQC_ERR_ACC || st == PQC_ERR_TIMEOUT)
            resident.valid = 0;
    }
    return last.status = st;
}

/* ML-KEM's status word: its FIPS 203 section 7 input checks. */
static int judge_mlkem(uint32_t word)
{
    switch (word) {
    case PQC_MLKEM_STATUS_OK: return PQC_OK;
    case PQC_MLKEM_STATUS_EK_INVALID: return PQC_ERR_EK_INVALID;
    case PQC_MLKEM_STATUS_DK_HASH_MISMATCH: return PQC_ERR_DK_HASH_MISMATCH;
    default: return PQC_ERR_STATUS;   /* NOT_RUN (0) included: never taken as OK */
    }
}

/* One run of ML-KEM (op, param): in[i] -> DMEM lay->in[i]; DMEM lay->out[i] -> out[i]. */
static int run(unsigned op, unsigned param, const uint8_t *const in[2], uint8_t *const out[2])
{
    last = (struct pqc_info){0};
    const struct pqc_mlkem_layout *lay = find_layout(op, param);
    if (lay == NULL)
        return last.status = PQC_ERR_PARAM;
    for (int i = 0; i < 2; i++)
        if ((lay->in[i].len && in[i] == NULL) || (lay->out[i].len && out[i] == NULL))
            return last.status = PQC_ERR_PARAM;
    const struct program p = {lay->op, lay->param, lay->imem_words, lay->imem_fnv,
                              lay->const_bytes, lay->const_fnv, lay->dmem_end};
    const struct pqc_image *img = images[op][pqc_mlkem_param_index(param)];
    int load;
    if (begin(img, &p, &load) != PQC_OK)
        return last.status;
    for (int i = 0; i < 2; i++)
        acc_list_in(&list, lay->in[i].addr, in[i], lay->in[i].len);
    acc_list_run(&list);
    for (int i = 0; i < 2; i++)
        acc_list_out(&list, lay->out[i].addr, out[i], lay->out[i].len);
    return finish(&p, img, load, lay->status_addr, judge_mlkem);
}

/* ---- randomness the caller leaves to the library (pqc.h "Randomness") ------------------- */

const uint8_t pqc_rnd_drbg[1];
static uint8_t drawn[64] __attribute__((aligned(4)));   /* wiped after the call that used it */

static void wipe_drawn(void)
{
    volatile uint8_t *b = drawn;
    for (unsigned i = 0; i < sizeof drawn; i++)
        b[i] = 0;
}

/* n bytes from the DRBG into drawn; PQC_ERR_RANDOM (recorded in last) if it cannot give them,
 * PQC_ERR_BUSY while a mu stream holds the KMAC block (the DRBG's HMAC would restart it). */
static int draw(unsigned n)
{
    int st = pqc_mldsa_mu_streaming() ? PQC_ERR_BUSY
           : drbg_generate(drawn, n, NULL, 0) == DRBG_OK ? PQC_OK : PQC_ERR_RANDOM;
    if (st != PQC_OK)
        last = (struct pqc_info){.status = st};
    return st;
}

int pqc_feed_acc_entropy(unsigned n)
{
    uint32_t words[8];
    if (n > 8)
        return PQC_ERR_PARAM;
    if (pqc_mldsa_mu_streaming())
        return PQC_ERR_BUSY;
    int st = drbg_generate((uint8_t *)words, 4 * n, NULL, 0) == DRBG_OK ? PQC_OK : PQC_ERR_RANDOM;
    if (st == PQC_OK)
        st = acc_add_entropy(words, n) == ACC_OK ? PQC_OK : PQC_ERR_BUSY;
    volatile uint32_t *w = words;
    for (unsigned i = 0; i < 8; i++)
        w[i] = 0;
    return st;
}

int pqc_mlkem_keypair(unsigned param, const uint8_t *d, const uint8_t *z, uint8_t *ek, uint8_t *dk)
{
    const uint8_t *in[2] = {d, z};
    uint8_t *out[2] = {ek, dk};
    if (d == NULL && z == NULL) {
        if (draw(64) != PQC_OK)
            return last.status;
        in[0] = drawn;
        in[1] = drawn + 32;
    }
    int st = run(PQC_MLKEM_KEYGEN, param, in, out);
    wipe_drawn();
    return st;
}

int pqc_mlkem_encaps(unsigned param, const uint8_t *ek, const uint8_t *m, uint8_t *K, uint8_t *c)
{
    const uint8_t *in[2] = {ek, m};
    uint8_t *out[2] = {K, c};
    if (m == NULL) {
        if (draw(32) != PQC_OK)
            return last.status;
        in[1] = drawn;
    }
    int st = run(PQC_MLKEM_ENCAPS, param, in, out);
    wipe_drawn();
    return st;
}

/* ML-KEM's k for a set, 0 for none. */
static unsigned mlkem_k(unsigned param)
{
    return param == 512 ? 2 : param == 768 ? 3 : param == 1024 ? 4 : 0;
}

int pqc_mlkem_check_ek(unsigned param, const uint8_t *ek)
{
    last = (struct pqc_info){0};
    unsigned k = mlkem_k(param);
    if (k == 0 || ek == NULL)
        return last.status = PQC_ERR_PARAM;
    unsigned over = 0;   /* ek is public: the count is only for a uniform loop */
    for (unsigned i = 0; i < 384 * k; i += 3) {
        uint32_t a = ek[i] | (ek[i + 1] & 0x0fu) << 8, b = ek[i + 1] >> 4 | (uint32_t)ek[i + 2] << 4;
        over += (a >= 3329) + (b >= 3329);
    }
    return last.status = over ? PQC_ERR_EK_INVALID : PQC_OK;
}

int pqc_mlkem_check_dk(unsigned param, const uint8_t *dk)
{
    last = (struct pqc_info){0};
    unsigned k = mlkem_k(param);
    if (k == 0 || dk == NULL)
        return last.status = PQC_ERR_PARAM;
    if (pqc_mldsa_mu_streaming())
        return last.status = PQC_ERR_BUSY;
    uint8_t h[32] __attribute__((aligned(4)));
    if (kmac_sha3_256(dk + 384 * k, 384 * k + 32, h) != KMAC_OK)
        return last.status = PQC_ERR_KMAC;
    uint8_t diff = 0;   /* both hashes of ek, public; compared whole anyway */
    for (unsigned i = 0; i < 32; i++)
        diff |= h[i] ^ dk[768 * k + 32 + i];
    return last.status = diff ? PQC_ERR_DK_HASH_MISMATCH : PQC_OK;
}

int pqc_mlkem_decaps(unsigned param, const uint8_t *dk, const uint8_t *c, uint8_t *K)
{
    const uint8_t *in[2] = {dk, c};
    uint8_t *out[2] = {K, NULL};
    return run(PQC_MLKEM_DECAPS, param, in, out);
}

int pqc_mlkem_decaps_masked(unsigned param, const uint8_t *mdk, const uint8_t *c, uint8_t *K0,
                            uint8_t *K1)
{
    const uint8_t *in[2] = {mdk, c};
    uint8_t *out[2] = {K0, K1};
    entropy_words = 8;   /* URND's seed (the program's first RND read) */
    int st = run(PQC_MLKEM_DECAPS_MASKED, param, in, out);
    entropy_words = 0;
    return st;
}

/* ---- ML-DSA ------------------------------------------------------------------------------ */

static const struct pqc_mldsa_layout *find_dsa_layout(unsigned op, unsigned param)
{
    int p = pqc_mldsa_param_index(param);
    unsigned row = op * PQC_MLDSA_PARAMS + (unsigned)p;
    if (p >= 0 && row < PQC_MLDSA_LAYOUTS && pqc_mldsa_layouts[row].op == op &&
        pqc_mldsa_layouts[row].param == param)
        return &pqc_mldsa_layouts[row];
    for (unsigned i = 0; i < PQC_MLDSA_LAYOUTS; i++)
        if (pqc_mldsa_layouts[i].op == op && pqc_mldsa_layouts[i].param == param)
            return &pqc_mldsa_layouts[i];
    return NULL;
}

int pqc_mldsa_set_image(const struct pqc_image *img)
{
    int p = img == NULL ? -1 : pqc_mldsa_param_index(img->param);
    if (p < 0 || find_dsa_layout(img->op, img->param) == NULL)
        return PQC_ERR_PARAM;
    const struct pqc_image **slot = &dsa_images[img->op][p];
    if (resident.valid && *slot == resident.img)
        resident.valid = 0;
    forget_checked(*slot);
    forget_checked(img);
    *slot = img;
    return PQC_OK;
}

void pqc_mldsa_clear_image(unsigned op, unsigned param)
{
    int p = pqc_mldsa_param_index(param);
    if (op < PQC_MLDSA_OPS && p >= 0) {
        if (resident.img == dsa_images[op][p])
            resident.valid = 0;
        forget_checked(dsa_images[op][p]);
        dsa_images[op][p] = NULL;
    }
}

static int judge_none(uint32_t word) { (void)word; return PQC_OK; }

static int judge_sign(uint32_t word)
{
    switch (word) {
    case PQC_MLDSA_SIGN_STATUS_OK: return PQC_OK;
    case PQC_MLDSA_SIGN_STATUS_MSG_LENGTH: return PQC_ERR_LENGTH;
    default: return PQC_ERR_STATUS;   /* NOT_RUN (0) included */
    }
}

static int judge_verify(uint32_t word)
{
    switch (word) {
    case PQC_MLDSA_VERIFY_STATUS_VALID: return PQC_OK;
    case PQC_MLDSA_VERIFY_STATUS_INVALID: case PQC_MLDSA_VERIFY_STATUS_Z_RANGE:
    case PQC_MLDSA_VERIFY_STATUS_HINT_COUNT: case PQC_MLDSA_VERIFY_STATUS_HINT_ORDER:
    case PQC_MLDSA_VERIFY_STATUS_HINT_PADDING:
        return PQC_MLDSA_INVALID;
    case PQC_MLDSA_VERIFY_STATUS_MSG_LENGTH: return PQC_ERR_LENGTH;
    default: return PQC_ERR_STATUS;   /* NONE (0): the program did not finish */
    }
}

/* The layout row, the set's lengths and the image of (op, param); PQC_OK or PQC_ERR_PARAM. */
static int dsa_setup(unsigned op, unsigned param, const struct pqc_mldsa_layout **lay,
                     const struct pqc_mldsa_set **set, struct program *p)
{
    last = (struct pqc_info){0};
    *lay = find_dsa_layout(op, param);
    if (*lay == NULL)
        return last.status = PQC_ERR_PARAM;
    *set = &pqc_mldsa_sets[pqc_mldsa_param_index(param)];
    *p = (struct program){(*lay)->op, (*lay)->param, (*lay)->imem_words, (*lay)->imem_fnv,
                          (*lay)->const_bytes, (*lay)->const_fnv, (*lay)->dmem_end};
    return PQC_OK;
}

static const struct pqc_image *dsa_image(unsigned op, unsigned param)
{
    return dsa_images[op][pqc_mldsa_param_index(param)];
}

int pqc_mldsa_keypair(unsigned param, const uint8_t *xi, uint8_t *pk, uint8_t *sk)
{
    const struct pqc_mldsa_layout *lay;
    const struct pqc_mldsa_set *set;
    struct program p;
    if (dsa_setup(PQC_MLDSA_KEYGEN, param, &lay, &set, &p) != PQC_OK)
        return last.status;
    if (pk == NULL || sk == NULL)
        return last.status = PQC_ERR_PARAM;
    const struct pqc_image *img = dsa_image(PQC_MLDSA_KEYGEN, param);
    int load;
    if (begin(img, &p, &load) != PQC_OK)
        return last.status;
    if (xi == NULL) {
        if (draw(32) != PQC_OK)
            return last.status;
        xi = drawn;
    }
    acc_list_in(&list, lay->xi, xi, PQC_MLDSA_SEED_BYTES);
    acc_list_run(&list);
    acc_list_out(&list, lay->pk, pk, set->pk);
    acc_list_out(&list, lay->sk, sk, set->sk);
    /* keygen writes no status word: ERR_BITS and the ecall are its checks */
    int st = finish(&p, img, load, lay->status_addr, judge_none);
    wipe_drawn();
    return st;
}

/* M' or mu, exactly one; M' within the program's buffer. */
static int message_ok(const struct pqc_mldsa_layout *lay, const uint8_t *mprime,
                      uint32_t mprime_len, const uint8_t *mu)
{
    if ((mprime == NULL) == (mu == NULL) || (mu != NULL && mprime_len))
        return PQC_ERR_PARAM;
    if (mprime != NULL && mprime_len > lay->msg_max)
        return PQC_ERR_LENGTH;
    return PQC_OK;
}

int pqc_mldsa_sign(unsigned param, const uint8_t *sk, const uint8_t *mprime, uint32_t mprime_len,
                   const uint8_t *mu, const uint8_t *rnd, uint8_t *sig)
{
    static const uint8_t zero_rnd[PQC_MLDSA_RND_BYTES];   /* the deterministic variant */
    unsigned op = mu != NULL ? PQC_MLDSA_SIGN_MU : PQC_MLDSA_SIGN;
    const struct pqc_mldsa_layout *lay;
    const struct pqc_mldsa_set *set;
    struct program p;
    if (dsa_setup(op, param, &lay, &set, &p) != PQC_OK)
        return last.status;
    if (sk == NULL || sig == NULL)
        return last.status = PQC_ERR_PARAM;
    int st = message_ok(lay, mprime, mprime_len, mu);
    if (st != PQC_OK)
        return last.status = st;
    uint32_t kappa = 0, len_word = mprime_len;
    const struct pqc_image *img = dsa_image(op, param);
    int load;
    if (begin(img, &p, &load) != PQC_OK)
        return last.status;
    if (rnd == PQC_RND_DRBG) {
        if (draw(PQC_MLDSA_RND_BYTES) != PQC_OK)
            return last.status;
        rnd = drawn;
    }
    acc_list_in(&list, lay->sk, sk, set->sk);
    acc_list_in(&list, lay->rnd, rnd != NULL ? rnd : zero_rnd, PQC_MLDSA_RND_BYTES);
    if (mu != NULL)
        acc_list_in(&list, lay->mu, mu, PQC_MLDSA_MU_BYTES);
    else {
        acc_list_in(&list, lay->msg, mprime, mprime_len);
        acc_list_in(&list, lay->mlen, &len_word, 4);
    }
    acc_list_run(&list);
    acc_list_out(&list, lay->sig, sig, set->sig);
    acc_list_out(&list, lay->kappa, &kappa, 4);
    st = finish(&p, img, load, lay->status_addr, judge_sign);
    wipe_drawn();
    /* kappa starts at 0 and advances by l in every iteration, the accepted one included */
    if (st == PQC_OK && (kappa == 0 || kappa % set->l)) {
        memset(sig, 0, set->sig);
        return last.status = PQC_ERR_STATUS;
    }
    last.iterations = st == PQC_OK ? kappa / set->l : 0;
    return st;
}

int pqc_mldsa_verify(unsigned param, const uint8_t *pk, const uint8_t *mprime, uint32_t mprime_len,
                     const uint8_t *mu, const uint8_t *sig)
{
    const struct pqc_mldsa_layout *lay;
    const struct pqc_mldsa_set *set;
    struct program p;
    if (dsa_setup(PQC_MLDSA_VERIFY, param, &lay, &set, &p) != PQC_OK)
        return last.status;
    if (pk == NULL || sig == NULL)
        return last.status = PQC_ERR_PARAM;
    int st = message_ok(lay, mprime, mprime_len, mu);
    if (st != PQC_OK)
        return last.status = st;
    /* the signature's parts go to three places: c_tilde, z (packed), the hint bytes */
    uint32_t len_word = mprime_len, ext_mu = mu != NULL;
    const struct pqc_image *img = dsa_image(PQC_MLDSA_VERIFY, param);
    int load;
    if (begin(img, &p, &load) != PQC_OK)
        return last.status;
    acc_list_in(&list, lay->pk, pk, set->pk);
    acc_list_in(&list, lay->ctil, sig, set->ctil);
    acc_list_in(&list, lay->z, sig + set->ctil, set->z);
    acc_list_in(&list, lay->hint, sig + set->ctil + set->z, set->hint);
    acc_list_in(&list, lay->ext_mu, &ext_mu, 4);
    acc_list_in(&list, lay->mlen, &len_word, 4);
    if (mu != NULL)
        acc_list_in(&list, lay->mu, mu, PQC_MLDSA_MU_BYTES);
    else
        acc_list_in(&list, lay->msg, mprime, mprime_len);
    acc_list_run(&list);
    return finish(&p, img, load, lay->status_addr, judge_verify);
}

#endif
