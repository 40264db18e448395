/* SPDX-License-Identifier: MIT */
/* libstackbench: everything public in one include. */
#ifndef STACKBENCH_H
#define STACKBENCH_H

/* core */
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/util.h"
#include "stackbench/version.h"
#include "stackbench/yaml.h"

/* boards */
#include "stackbench/device.h"
#include "stackbench/gups.h"
#include "stackbench/lock.h"
#include "stackbench/pattern.h"
#include "stackbench/pcidev.h"
#include "stackbench/point.h"
#include "stackbench/topology.h"
#include "stackbench/transport.h"
#include "stackbench/uri.h"

/* bench instruments and the simulated bench's thermal model */
#include "stackbench/bench_model.h"
#include "stackbench/flir.h"
#include "stackbench/instrument.h"
#include "stackbench/radiometry.h"

/* campaigns */
#include "stackbench/campaign.h"
#include "stackbench/client.h"
#include "stackbench/report.h"
#include "stackbench/slurm.h"
#include "stackbench/store.h"

/* analysis */
#include "stackbench/bench_metrics.h"
#include "stackbench/devices.h"
#include "stackbench/lifetime.h"
#include "stackbench/trace.h"

#endif /* STACKBENCH_H */
