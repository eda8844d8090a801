/* rigkit/rigkit.h: umbrella header of the rigkit core library. */
#ifndef RIGKIT_RIGKIT_H
#define RIGKIT_RIGKIT_H

#include <rigkit/version.h>
#include <rigkit/error.h>
#include <rigkit/halves.h>
#include <rigkit/math.h>
#include <rigkit/euler.h>
#include <rigkit/joint.h>
#include <rigkit/skeleton.h>
#include <rigkit/clip.h>
#include <rigkit/asset.h>
#include <rigkit/fk.h>
#include <rigkit/skin.h>
#include <rigkit/skin_mesh.h>
#include <rigkit/dh.h>
#include <rigkit/reduce.h>
#include <rigkit/humanoid.h>
#include <rigkit/linalg.h>
#include <rigkit/tree.h>
#include <rigkit/tree_fk_batch.h>
#include <rigkit/chain.h>
#include <rigkit/junction.h>
#include <rigkit/loop.h>
#include <rigkit/jacobian.h>
#include <rigkit/ik.h>
#include <rigkit/retarget.h>
#include <rigkit/profile.h>

#endif
