/* rigkit/api.h: symbol visibility. Libraries are built with hidden visibility; RK_API marks
 * the public functions. */
#ifndef RIGKIT_API_H
#define RIGKIT_API_H

#if defined(RK_BUILDING_LIBRARY) && defined(__GNUC__)
#define RK_API __attribute__((visibility("default")))
#else
#define RK_API
#endif

#endif
