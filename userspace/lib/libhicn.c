// SPDX-License-Identifier: GPL-2.0
/*
 * libhicn: helpers for AF_HICN applications.
 */
#include <stdio.h>

#include "libhicn.h"

int hicn_family(void)
{
	FILE *f = fopen(HICN_FAMILY_PARAM, "r");
	int family = AF_HICN;

	if (!f)
		return AF_HICN;
	if (fscanf(f, "%d", &family) != 1)
		family = AF_HICN;
	fclose(f);
	return family;
}
