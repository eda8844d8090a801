/* rigkit/rigkit.h: umbrella header of the rigkit core library. */
#ifndef RIGKIT_RIGKIT_H
#define RIGKIT_RIGKIT_H

#include <rigkit/version.h>
#include <rigkit/error.h>
#include <rigkit/math.h>
#include <rigkit/euler.h>
#include <rigkit/skeleton.h>
#include <rigkit/clip.h>
#include <rigkit/asset.h>
#include <rigkit/fk.h>
#include <rigkit/dh.h>
#include <rigkit/reduce.h>

#endif
