/* SPDX-License-Identifier: MIT */
/* libstackbench: everything public in one include. */
#ifndef STACKBENCH_H
#define STACKBENCH_H

#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/uri.h"
#include "stackbench/version.h"

#endif /* STACKBENCH_H */
