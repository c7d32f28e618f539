/* kf: the focus launch's hottest source lines, from its "source" (the
 * source page as kf-read kept it): where in the code the warps stall and
 * which lines make the excessive L2 sectors. */
#include <string.h>

#include "ncu_pages.h"
#include "record.h"

int
ncu_lines_say(struct kf_fb *fb, const cJSON *k, cJSON *focus)
{
	return 0;
}
