"""Units of ``deora/stability.py`` outside its checks."""

import numpy as np

from attention_theory.deora.stability import rho_vec


def test_rho_vec_takes_lists_as_arrays():
    # a list was used as given: 3 * [1, 2] repeated it, and the value had the wrong shape
    args = (1.0, 2, 3, 1.0, 4)
    from_list = rho_vec([1.0, 2.0], *args)
    from_array = rho_vec(np.array([1.0, 2.0]), *args)
    assert from_list.shape == (2,) and np.array_equal(from_list, from_array)
    assert from_list[0] == rho_vec(1.0, *args)
