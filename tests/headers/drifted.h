/* A header whose Index has drifted, for the check's own test (CTest headers/index_catches_drift
 * expects check_index.py to fail on it).
 *
 * Index: rk_drift_kept, rk_drift_removed
 */
#ifndef RK_TEST_DRIFTED_H
#define RK_TEST_DRIFTED_H

#define RK_API

RK_API int rk_drift_kept(void);
RK_API int rk_drift_added(void);

#endif
