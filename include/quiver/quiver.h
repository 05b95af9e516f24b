/* quiver: an embeddable columnar query engine.  The umbrella header: include
 * this, or the one header of the layer you use. */
#ifndef QUIVER_QUIVER_H
#define QUIVER_QUIVER_H

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/expr.h"
#include "quiver/compute.h"
#include "quiver/pushdown.h"
#include "quiver/storage.h"
#include "quiver/index.h"
#include "quiver/scan.h"
#include "quiver/exec.h"
#include "quiver/graph.h"

#endif
