"""The cases of tests/test_differential_special.py that differ today.

Each maps a case id of optable.py's table to why: "<class>: <what differs>".
They are strict xfails: remove an entry when its case agrees.
"""

CLASSES = ("special values", "graphs of gradients", "saved tensors",
           "unsupported")


SPECIAL_UPSTREAM = {
    'F.linear(x, weight): x 3, weight 2x3':
        'special values: the sign of a zero in a matrix product: for K=1 '
        "PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's "
        "BLAS sums from +0.0; the kernel's, not the formula's",
    'F.linear(x, weight): x f32 4x3, weight f32 2x3':
        "special values: float32 product near float32's max: whether a "
        "sum overflows to inf, then NaN, follows MKL's order and fused "
        "multiply-adds, not NumPy's BLAS; the formula is PyTorch's",
    'F.linear(x, weight, bias): x 3, weight 2x3, bias 2':
        'special values: the sign of a zero in a matrix product: for K=1 '
        "PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's "
        "BLAS sums from +0.0; the kernel's, not the formula's",
    'F.linear(x, weight, bias): x f32 4x3, weight f32 2x3, bias f32 2':
        "special values: float32 product near float32's max: whether a "
        "sum overflows to inf, then NaN, follows MKL's order and fused "
        "multiply-adds, not NumPy's BLAS; the formula is PyTorch's",
    'Tensor.add_(other): on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other): on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other): on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other): on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other, alpha=2): on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other, alpha=2): on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other, alpha=2): on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.add_(other, alpha=2): on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.copy_(src): on a non-leaf, f32 2x3, f32 3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.copy_(src): on a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.copy_(src): on a non-leaf, f64 2x3, f32 0-dim':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.copy_(src): on a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.copy_(src): on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   nan], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000, '
        '0.e+000], [...',
    'Tensor.copy_(src): on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   nan], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000, '
        '0.e+000], [...',
    'Tensor.copy_(src): on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., 0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.copy_(src): on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., 0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.div_(other): on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.div_(other): on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.div_(other): on an output saved for backward, f64 2x3, f64 3':
        'special values: run 1: leaf 1 .grad: toygrad [ 4.96077190e-01, '
        '-1.86001873e+38, 0.00000000e+00], torch [ 4.96077190e-001, '
        '-1.86001873e+03...',
    'Tensor.div_(other): on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 4.e+299]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.div_(other): on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.00000000e+000, '
        '0.00000000e+000,       inf], [      -inf,       nan, '
        '6.33023387e+299]], t...',
    'Tensor.mul_(other): on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.mul_(other): on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.mul_(other): on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.0e+000, 0.0e+000,'
        '   inf], [  -inf,   nan, 2.5e+300]], torch [[ 0.0e+000, -0.0e+000,'
        '    i...',
    'Tensor.mul_(other): on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.00000000e+000, '
        '0.00000000e+000,       inf], [      -inf,       nan, '
        '1.48410913e+300]], t...',
    'Tensor.reciprocal(): f32 2x3':
        'special values: run 1: leaf 0 .grad: toygrad [[ 1.4012985e-45, '
        '-3.0677708e-38, 3.4547866e+29], [-6.0107917e-01, -0.0000000e+00, '
        '0.0000000...',
    'Tensor.reciprocal(): f64 2x3':
        'special values: run 1: leaf 0 .grad: toygrad [[ 1.00254350e-300, '
        '-7.47366855e+037, -4.94065646e-324], [ 2.53850301e+000, '
        '-0.00000000e+000...',
    'Tensor.sub_(other): on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.sub_(other): on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.sub_(other): on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.sub_(other): on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'Tensor.zero_(): on a non-leaf, f32 2x3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.zero_(): on a non-leaf, f64 2x3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.zero_(): on a view of a non-leaf, f64 2x3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   nan], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000, '
        '0.e+000], [...',
    'Tensor.zero_(): on the base of a view, f64 2x3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., 0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'a ** b: f32 2x3, f64 0-dim':
        'special values: run 1: leaf 0 .grad: toygrad [[-1.4012985e-45, '
        '4.7845164e-39, -5.4552279e+29], [ 6.6068804e-01, 0.0000000e+00, '
        '-0.0000000...',
    'a ** b: f64 0-dim, f64 0-dim':
        'special values: run 8: leaf 0 .grad: toygrad 1.5e-323, torch '
        '1.e-323',
    'a ** b: f64 2x3, f64 0-dim':
        'special values: run 1: leaf 0 .grad: toygrad [[-1.67009302e-300, '
        '5.72465987e+038, 4.94065646e-324], [-1.96336676e+000, '
        '0.00000000e+000, -...',
    'a ** number: f32 2x3, 0':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'a ** number: f64 0-dim, 2.5':
        'special values: run 8: leaf 0 .grad: toygrad 2.e-323, torch '
        '2.5e-323',
    'a ** number: f64 2x3, 0':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., nan], '
        '[nan, nan, 0.]], torch [[0., 0., 0.], [0., 0., 0.]]',
    'a ** number: f64 2x3, 0.5':
        'special values: run 1: leaf 0 .grad: toygrad [[-5.66627825e-301, '
        '1.37479011e+038, 0.00000000e+000], [-7.99424530e-001, '
        '0.00000000e+000, -...',
    'a *= b: on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a *= b: on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a *= b: on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.0e+000, 0.0e+000,'
        '   inf], [  -inf,   nan, 2.5e+300]], torch [[ 0.0e+000, -0.0e+000,'
        '    i...',
    'a *= b: on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.00000000e+000, '
        '0.00000000e+000,       inf], [      -inf,       nan, '
        '1.56089809e+300]], t...',
    'a += b: on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a += b: on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a += b: on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a += b: on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a -= b: on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a -= b: on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a -= b: on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a -= b: on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a / b: f32 2x3, f64 3':
        'special values: run 1: leaf 1 .grad: toygrad [ 5.46095912e-02, '
        '-1.36918610e+38, 0.00000000e+00], torch [ 5.46095912e-002, '
        '-1.36918610e+03...',
    'a /= b: on a view of a non-leaf, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a /= b: on a view of a non-leaf, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a /= b: on the base of a view, f64 2x3, 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 4.e+299]], torch [[ 0.e+000, -0.e+000,   '
        'inf], [...',
    'a /= b: on the base of a view, f64 2x3, f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.00000000e+000, '
        '0.00000000e+000,       inf], [      -inf,       nan, '
        '8.62429788e+299]], t...',
    'a @ b: f64 3, f64 3x2':
        'special values: the sign of a zero in a matrix product: for K=1 '
        "PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's "
        "BLAS sums from +0.0; the kernel's, not the formula's",
    'nn.Linear(in, out)(x): x 3, bias=False':
        'special values: the sign of a zero in a matrix product: for K=1 '
        "PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's "
        "BLAS sums from +0.0; the kernel's, not the formula's",
    'nn.Linear(in, out)(x): x 3, bias=True':
        'special values: the sign of a zero in a matrix product: for K=1 '
        "PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's "
        "BLAS sums from +0.0; the kernel's, not the formula's",
    'nn.MaxPool2d(2)(x): x 1x1x4x4':
        'special values: run 0: leaf 0 .grad: toygrad [[[[ 0.,  0., -0.,  '
        '0.],  [ 0.,  0.,  0.,  0.],  [ inf,  0.,  0.,  0.],  [ 0.,  0.,  '
        '0., -in...',
    'nn.MaxPool2d(2)(x): x 2x3x5x7':
        'special values: run 0: leaf 0 .grad: toygrad [[[[ 0.00000000e+000,'
        ' 0.00000000e+000, 0.00000000e+000, ...,   0.00000000e+000,       '
        'inf, 0...',
    'number ** a: f32 2x3, 2':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0., -0., inf], '
        '[-inf, nan, inf]], torch [[ 0.000000e+00, -0.000000e+00,      '
        'inf], [     ...',
    'number / a: f32 2x3, True':
        'special values: run 1: leaf 0 .grad: toygrad [[ 1.401298e-45, '
        '-7.204138e-39, 3.238560e+29], [-7.979135e-01, -0.000000e+00, '
        '0.000000e+00]]...',
    'number / a: f64 2x3, 2.5':
        'special values: run 1: leaf 0 .grad: toygrad [[ 9.23039826e-301, '
        '-2.65165622e+038, -9.88131292e-324], [ 1.91271903e+000, '
        '-0.00000000e+000...',
    'x[index] = value: on a non-leaf, f64 2x3, [0] = f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0.e+000, -0.e+000,'
        '   nan], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000, '
        '0.e+000],...',
    'x[index] = value: on a non-leaf, f64 2x3, [:, 1] = 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[ 0.e+000, -0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000,   '
        'inf], [...',
    'x[index] = value: on the base of a view, f64 2x3, [0] = f64 3':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   nan], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000, '
        '0.e+000], [...',
    'x[index] = value: on the base of a view, f64 2x3, [:, 1] = 2.5':
        'special values: run 0: leaf 0 .grad: toygrad [[0.e+000, 0.e+000,'
        '   inf], [  -inf,   nan, 1.e+300]], torch [[0.e+000, 0.e+000,   '
        'inf], [  ...',
    'F.log_softmax(x, dim) at special points: f32 special points, nan, 0':
        'special values: float32, a dim other than the last: at the '
        'subnormal level PyTorch\'s vectorized kernel rounds grad - '
        'exp(out) * sum to -0.0 where NumPy\'s gives -1e-45 or 0.0 '
        '(its exp and fused multiply-add, not the formula)',
    'F.log_softmax(x, dim) at special points: f32 special points, ties, 0':
        'special values: float32, a dim other than the last: at the '
        'subnormal level PyTorch\'s vectorized kernel rounds grad - '
        'exp(out) * sum to -0.0 where NumPy\'s gives -1e-45 or 0.0 '
        '(its exp and fused multiply-add, not the formula)',
}


GRADIENT_GRAPH = {
    'F.linear(x, weight): x 3, weight 2x3':
        'graphs of gradients: the squeeze of a 1-D matmul records its '
        "backward as reshape (ViewBackward0) where PyTorch's "
        'squeeze_backward unsqueezes (UnsqueezeBackward0): '
        'ops.Squeeze.backward, a view class (fix-views)',
    'F.relu(x): f32 2x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float32 2x3 [[0., 0., 0.], [0., 0., 0.]]',
    'F.relu(x): f64 0':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 0 []',
    'F.relu(x): f64 0-dim':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 0-dim 0.',
    'F.relu(x): f64 2x1x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 2x1x3 [[[0., 0., 0.]], [[0., 0., '
        '0.]]]',
    'F.relu(x): f64 2x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 2x3 [[0., 0., 0.], [0., 0., 0.]]',
    'F.relu(x): f64 3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 3 [0., 0., 0.]',
    'F.relu(x): f64 3x2, of x.t()':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 3x2 [[0., 0.], [0., 0.], [0., 0.]]',
    'Tensor.add_(other): on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'Tensor.add_(other, alpha=2): on a leaf, f64 2x3 (no grad)':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,-] > AccumulateGrad(2x3), torch '
        'ViewBackw...',
    'Tensor.add_(other, alpha=2): on a non-leaf, f32 2x3, f32 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,-] > AccumulateGrad(2x3), torch '
        'ViewBackw...',
    'Tensor.add_(other, alpha=2): on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'Tensor.add_(other, alpha=2): on a non-leaf, f64 2x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,-] > AccumulateGrad(2x3), torch '
        'ViewBackw...',
    'Tensor.copy_(src): on a non-leaf, f32 2x3, f32 3':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'Tensor.copy_(src): on a non-leaf, f64 2x3, 2.5':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'Tensor.copy_(src): on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'Tensor.copy_(src): on a non-leaf, f64 2x3, f64 3':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'Tensor.div_(other): on a leaf, f64 2x3 (no grad)':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,6] > MulBackward0[4,-] > '
        'NegBackward0[5] ...',
    'Tensor.div_(other): on a non-leaf, f32 2x3, f32 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,8] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'Tensor.div_(other): on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'Tensor.div_(other): on a non-leaf, f64 2x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,8] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'Tensor.mul_(other): on a non-leaf, f32 2x3, f32 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'CloneBackward0...',
    'Tensor.mul_(other): on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'Tensor.mul_(other): on a non-leaf, f64 2x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'CloneBackward0...',
    'Tensor.reciprocal(): f32 2x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(2x3) > '
        'ReciprocalBac...',
    'Tensor.reciprocal(): f64 0':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(0) > '
        'ReciprocalBackw...',
    'Tensor.reciprocal(): f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(0-dim) > '
        'ReciprocalB...',
    'Tensor.reciprocal(): f64 2x1x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(2x1x3) > '
        'ReciprocalB...',
    'Tensor.reciprocal(): f64 2x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(2x3) > '
        'ReciprocalBac...',
    'Tensor.reciprocal(): f64 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(3) > '
        'ReciprocalBackw...',
    'Tensor.reciprocal(): f64 3x2, of x.t()':
        'graphs of gradients: grad[0].graph: toygrad TBackward0[1] > '
        'MulBackward0[2,5] > MulBackward0[3,5] > NegBackward0[4] > '
        'AccumulateGrad(2x3)...',
    'Tensor.relu(): f32 2x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float32 2x3 [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.relu(): f64 0':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 0 []',
    'Tensor.relu(): f64 0-dim':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 0-dim 0.',
    'Tensor.relu(): f64 2x1x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 2x1x3 [[[0., 0., 0.]], [[0., 0., '
        '0.]]]',
    'Tensor.relu(): f64 2x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 2x3 [[0., 0., 0.], [0., 0., 0.]]',
    'Tensor.relu(): f64 3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 3 [0., 0., 0.]',
    'Tensor.relu(): f64 3x2, of x.t()':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 3x2 [[0., 0.], [0., 0.], [0., 0.]]',
    'Tensor.squeeze(): f64 1x1':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'AccumulateGrad(0-dim), torch UnsqueezeBackward0[1] > '
        'UnsqueezeBackward0[2]...',
    'Tensor.squeeze(): f64 2x1x3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'AccumulateGrad(2x3), torch UnsqueezeBackward0[1] > '
        'AccumulateGrad(2x3)',
    'Tensor.squeeze(dim): f64 0-dim, 0':
        'graphs of gradients: grad[0].is_leaf: toygrad False, torch True',
    'Tensor.squeeze(dim): f64 1, -1':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'AccumulateGrad(0-dim), torch UnsqueezeBackward0[1] > '
        'AccumulateGrad(0-dim)',
    'Tensor.squeeze(dim): f64 2x1x3, -2':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'AccumulateGrad(2x3), torch UnsqueezeBackward0[1] > '
        'AccumulateGrad(2x3)',
    'Tensor.squeeze(dim): f64 2x1x3, 0':
        'graphs of gradients: grad[0].is_leaf: toygrad False, torch True',
    'Tensor.squeeze(dim): f64 2x1x3, 1':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'AccumulateGrad(2x3), torch UnsqueezeBackward0[1] > '
        'AccumulateGrad(2x3)',
    'Tensor.sub_(other): on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'Tensor.zero_(): on a non-leaf, f32 2x3':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'Tensor.zero_(): on a non-leaf, f64 2x3':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'a * b: f32 2x3, f64 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a * b: f32 2x3, f64 3':
        'graphs of gradients: grad[0].requires_grad: toygrad False, torch '
        'True',
    'a ** b: f32 2x3, f32 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > AccumulateGrad(3) > '
        'PowBackward...',
    'a ** b: f32 2x3, f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > AccumulateGrad(0-dim) > '
        'PowBack...',
    'a ** b: f32 2x3, f64 3':
        'graphs of gradients: grad[0].requires_grad: toygrad False, torch '
        'True',
    'a ** b: f64 0-dim, f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(0-dim) > AccumulateGrad(0-dim) '
        '> PowBa...',
    'a ** b: f64 0-dim, f64 2x3':
        'graphs of gradients: grad[0].graph: toygrad SumBackward0[1] > '
        'MulBackward0[2,5] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'AccumulateGra...',
    'a ** b: f64 0x3, f64 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(0x3) > AccumulateGrad(3) > '
        'PowBackward...',
    'a ** b: f64 2x1, f64 1x3':
        'graphs of gradients: grad[0].graph: toygrad SumBackward1[1] > '
        'MulBackward0[2,5] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'AccumulateGra...',
    'a ** b: f64 2x3 (no grad), f64 3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'WhereBackward0...',
    'a ** b: f64 2x3, f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > AccumulateGrad(0-dim) > '
        'PowBack...',
    'a ** b: f64 2x3, f64 2x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > AccumulateGrad(2x3) > '
        'PowBackwa...',
    'a ** b: f64 2x3, f64 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,4] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > AccumulateGrad(3) > '
        'PowBackward...',
    'a ** b: f64 2x3, f64 3 (no grad)':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward1[4,-] > '
        'AccumulateG...',
    'a ** b: f64 3, f64 2x3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,6] > MulBackward0[4,5] > '
        'AccumulateGrad(2...',
    'a ** b: i64 2x3, f32 3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'WhereBackward0...',
    'a ** b: i64 2x3, f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad SumBackward0[1] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > WhereBackward0[4] > '
        'MulBackward0[...',
    'a ** number: f32 2x3, -1':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f32 2x3, 0':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'a ** number: f32 2x3, 0.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f32 2x3, 2':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f32 2x3, 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f64 0-dim, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(0-dim) > PowBackward0[4] > '
        'AccumulateG...',
    'a ** number: f64 2x3, -1':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f64 2x3, 0':
        'graphs of gradients: grad[0].requires_grad: toygrad True, torch '
        'False',
    'a ** number: f64 2x3, 0.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f64 2x3, 2':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a ** number: f64 2x3, 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'MulBackward0[2,-] > AccumulateGrad(2x3) > PowBackward0[4] > '
        'AccumulateGra...',
    'a *= b: on a non-leaf, f32 2x3, f32 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'CloneBackward0...',
    'a *= b: on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a *= b: on a non-leaf, f64 2x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > MulBackward0[3,4] > AccumulateGrad(2x3) > '
        'CloneBackward0...',
    'a + b: f32 2x3, f64 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a + b: f32 2x3, f64 3':
        'graphs of gradients: grad[0].requires_grad: toygrad False, torch '
        'True',
    'a += b: on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a - b: f32 2x3, f64 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a - b: f32 2x3, f64 3':
        'graphs of gradients: grad[0].requires_grad: toygrad False, torch '
        'True',
    'a -= b: on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a / b: bool 2x3, f64 3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,6] > MulBackward0[4,-] > '
        'NegBackward0[5] ...',
    'a / b: f32 2x3, f32 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,7] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'a / b: f32 2x3, f64 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a / b: f32 2x3, f64 3':
        'graphs of gradients: grad[0].requires_grad: toygrad False, torch '
        'True',
    'a / b: f64 0-dim, f64 0-dim':
        'graphs of gradients: grad[1].graph: toygrad DivBackward0[1,5] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(0-dim) > '
        'AccumulateG...',
    'a / b: f64 0-dim, f64 2x3':
        'graphs of gradients: grad[1].graph: toygrad DivBackward0[1,5] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(2x3) > '
        'AccumulateGra...',
    'a / b: f64 0x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,7] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'a / b: f64 2x1, f64 1x3':
        'graphs of gradients: grad[1].graph: toygrad SumBackward1[1] > '
        'DivBackward0[2,6] > MulBackward0[3,5] > NegBackward0[4] > '
        'AccumulateGrad(2x...',
    'a / b: f64 2x3 (no grad), f64 3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,6] > MulBackward0[4,-] > '
        'NegBackward0[5] ...',
    'a / b: f64 2x3, f64 0-dim':
        'graphs of gradients: grad[1].graph: toygrad SumBackward0[1] > '
        'DivBackward0[2,6] > MulBackward0[3,5] > NegBackward0[4] > '
        'AccumulateGrad(2x...',
    'a / b: f64 2x3, f64 2x3':
        'graphs of gradients: grad[1].graph: toygrad DivBackward0[1,5] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(2x3) > '
        'AccumulateGra...',
    'a / b: f64 2x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,7] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'a / b: f64 3, f64 2x3':
        'graphs of gradients: grad[1].graph: toygrad DivBackward0[1,5] > '
        'MulBackward0[2,4] > NegBackward0[3] > AccumulateGrad(2x3) > '
        'AccumulateGra...',
    'a / b: i64 2x3, f32 3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,6] > MulBackward0[4,-] > '
        'NegBackward0[5] ...',
    'a / b: i64 2x3, f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad SumBackward0[1] > '
        'DivBackward0[2,5] > MulBackward0[3,-] > NegBackward0[4] > '
        'AccumulateGrad(2x...',
    'a /= b: on a leaf, f64 2x3 (no grad)':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,6] > MulBackward0[4,-] > '
        'NegBackward0[5] ...',
    'a /= b: on a non-leaf, f32 2x3, f32 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,8] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'a /= b: on a non-leaf, f64 2x3, f32 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'a /= b: on a non-leaf, f64 2x3, f64 3':
        'graphs of gradients: grad[1].graph: toygrad ViewBackward0[1] > '
        'SumBackward1[2] > DivBackward0[3,8] > MulBackward0[4,6] > '
        'NegBackward0[5] ...',
    'a @ b: f64 3, f64 3x2':
        'graphs of gradients: the squeeze of a 1-D matmul records its '
        "backward as reshape (ViewBackward0) where PyTorch's "
        'squeeze_backward unsqueezes (UnsqueezeBackward0): '
        'ops.Squeeze.backward, a view class (fix-views)',
    'autograd.Function with a non-differentiable output: f32 2x3, f64 0-dim':
        'graphs of gradients: grad[1].requires_grad: toygrad False, torch '
        'True',
    'nn.Linear(in, out)(x): x 3, bias=False':
        'graphs of gradients: the squeeze of a 1-D matmul records its '
        "backward as reshape (ViewBackward0) where PyTorch's "
        'squeeze_backward unsqueezes (UnsqueezeBackward0): '
        'ops.Squeeze.backward, a view class (fix-views)',
    'nn.ReLU()(x): f32 2x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float32 2x3 [[0., 0., 0.], [0., 0., 0.]]',
    'nn.ReLU()(x): f64 0':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 0 []',
    'nn.ReLU()(x): f64 0-dim':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 0-dim 0.',
    'nn.ReLU()(x): f64 2x1x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 2x1x3 [[[0., 0., 0.]], [[0., 0., '
        '0.]]]',
    'nn.ReLU()(x): f64 2x3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 2x3 [[0., 0., 0.], [0., 0., 0.]]',
    'nn.ReLU()(x): f64 3':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 3 [0., 0., 0.]',
    'nn.ReLU()(x): f64 3x2, of x.t()':
        'graphs of gradients: second order: 0.grad: toygrad gives NoneType '
        'None, torch a tensor of float64 3x2 [[0., 0.], [0., 0.], [0., 0.]]',
    'number ** a: f32 2x3, 0.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > PowBackward2[4] > '
        'AccumulateGra...',
    'number ** a: f32 2x3, 2':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > PowBackward2[4] > '
        'AccumulateGra...',
    'number ** a: f32 2x3, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > PowBackward2[4] > '
        'AccumulateGra...',
    'number ** a: f64 0-dim, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(0-dim) > PowBackward2[4] > '
        'AccumulateG...',
    'number ** a: f64 2x3, 0.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > PowBackward2[4] > '
        'AccumulateGra...',
    'number ** a: f64 2x3, 2':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > PowBackward2[4] > '
        'AccumulateGra...',
    'number ** a: f64 2x3, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'MulBackward0[2,3] > AccumulateGrad(2x3) > PowBackward2[4] > '
        'AccumulateGra...',
    'number / a: f32 2x3, 2':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
    'number / a: f32 2x3, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
    'number / a: f32 2x3, True':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
    'number / a: f64 0-dim, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
    'number / a: f64 2x3, 2':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
    'number / a: f64 2x3, 2.5':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
    'number / a: f64 2x3, True':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,5] > '
        'MulBackward0[2,5] > NegBackward0[3] > MulBackward0[4,-] > '
        'AccumulateGrad(...',
}


SAVED_SEQUENCE = {
    'Tensor.div_(other): on a leaf, f64 2x3 (no grad)':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64')...",
    'Tensor.div_(other): on a leaf, f64 2x3, f64 3':
        "saved tensors: only input 1 requires grad: toygrad [('another "
        "tensor', (2, 3), 'float64'), ('leaf 1', (3,), 'float64')], torch "
        "[('leaf 1'...",
    'Tensor.div_(other): on a non-leaf, f32 2x3, f32 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float32'), ('leaf 1', (3,), 'float32')], torch [('leaf 1', (3,), "
        "'float32')...",
    'Tensor.div_(other): on a non-leaf, f64 2x3, f32 0-dim':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (), 'float32')], torch [('leaf 1', (), "
        "'float32'), ('...",
    'Tensor.div_(other): on a non-leaf, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64')...",
    'Tensor.div_(other): on a view of a leaf, f64 2x3, f64 3':
        "saved tensors: only input 1 requires grad: toygrad [('another "
        "tensor', (3,), 'float64'), ('leaf 1', (3,), 'float64')], torch "
        "[('leaf 1', ...",
    'Tensor.div_(other): on a view of a non-leaf, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (3,), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64'), ...",
    'Tensor.div_(other): on an input saved for backward, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('another tensor', (2, 3), 'float64'), ('another "
        "tensor', (2, 3)...",
    'Tensor.div_(other): on an output saved for backward, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('output 0', (2, 3), 'float64'),"
        " ('another tensor', (2, 3), 'float64'), ('leaf 1', (3,), "
        "'float64')], t...",
    'Tensor.div_(other): on the base of a view, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64')...",
    'a ** b: f32 2x3, f32 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float32'), "
        "('leaf 1', (3,), 'float32'), ('output 0', (2, 3), 'float32')], "
        "torch [('...",
    'a ** b: f32 2x3, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float32'), "
        "('leaf 1', (), 'float64'), ('output 0', (2, 3), 'float32')], torch"
        " [('le...",
    'a ** b: f32 2x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float32'), "
        "('leaf 1', (3,), 'float64'), ('output 0', (2, 3), 'float64')], "
        "torch [('...",
    'a ** b: f64 0-dim, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (), 'float64'), "
        "('leaf 1', (), 'float64'), ('output 0', (), 'float64')], torch "
        "[('leaf 1', (...",
    'a ** b: f64 0-dim, f64 2x3':
        "saved tensors: as given: toygrad [('leaf 0', (), 'float64'), "
        "('leaf 1', (2, 3), 'float64'), ('output 0', (2, 3), 'float64')], "
        "torch [('le...",
    'a ** b: f64 0x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (0, 3), 'float64'), "
        "('leaf 1', (3,), 'float64'), ('output 0', (0, 3), 'float64')], "
        "torch [('...",
    'a ** b: f64 2x1, f64 1x3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 1), 'float64'), "
        "('leaf 1', (1, 3), 'float64'), ('output 0', (2, 3), 'float64')], "
        'torch [...',
    'a ** b: f64 2x3 (no grad), f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (3,), 'float64'), ('output 0', (2, 3), 'float64')], "
        "torch [('...",
    'a ** b: f64 2x3, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (), 'float64'), ('output 0', (2, 3), 'float64')], torch"
        " [('le...",
    'a ** b: f64 2x3, f64 2x3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (2, 3), 'float64'), ('output 0', (2, 3), 'float64')], "
        'torch [...',
    'a ** b: f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (3,), 'float64'), ('output 0', (2, 3), 'float64')], "
        "torch [('...",
    'a ** b: f64 2x3, f64 3 (no grad)':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (3,), 'float64'), ('output 0', (2, 3), 'float64')], "
        "torch [('...",
    'a ** b: f64 3, f64 2x3':
        "saved tensors: as given: toygrad [('leaf 0', (3,), 'float64'), "
        "('leaf 1', (2, 3), 'float64'), ('output 0', (2, 3), 'float64')], "
        "torch [('...",
    'a ** b: i64 2x3, f32 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'int64'), "
        "('leaf 1', (3,), 'float32'), ('output 0', (2, 3), 'float32')], "
        "torch [('le...",
    'a ** b: i64 2x3, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'int64'), "
        "('leaf 1', (), 'float64'), ('output 0', (2, 3), 'float64')], torch"
        " [('leaf...",
    'a / b: bool 2x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'bool'), "
        "('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), 'float64'), "
        "('leaf 0'...",
    'a / b: f32 2x3, f32 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float32'), "
        "('leaf 1', (3,), 'float32')], torch [('leaf 1', (3,), 'float32'), "
        "('leaf...",
    'a / b: f32 2x3, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float32'), "
        "('leaf 1', (), 'float64')], torch [('leaf 1', (), 'float64'), "
        "('leaf 0',...",
    'a / b: f32 2x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float32'), "
        "('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), 'float64'), "
        "('leaf...",
    'a / b: f64 0-dim, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (), 'float64'), "
        "('leaf 1', (), 'float64')], torch [('leaf 1', (), 'float64'), "
        "('leaf 0', (),...",
    'a / b: f64 0-dim, f64 2x3':
        "saved tensors: as given: toygrad [('leaf 0', (), 'float64'), "
        "('leaf 1', (2, 3), 'float64')], torch [('leaf 1', (2, 3), "
        "'float64'), ('leaf...",
    'a / b: f64 0x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (0, 3), 'float64'), "
        "('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), 'float64'), "
        "('leaf...",
    'a / b: f64 2x1, f64 1x3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 1), 'float64'), "
        "('leaf 1', (1, 3), 'float64')], torch [('leaf 1', (1, 3), "
        "'float64'), ('...",
    'a / b: f64 2x3 (no grad), f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), 'float64'), "
        "('leaf...",
    'a / b: f64 2x3, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (), 'float64')], torch [('leaf 1', (), 'float64'), "
        "('leaf 0',...",
    'a / b: f64 2x3, f64 2x3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (2, 3), 'float64')], torch [('leaf 1', (2, 3), "
        "'float64'), ('...",
    'a / b: f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), 'float64'), "
        "('leaf...",
    'a / b: f64 3, f64 2x3':
        "saved tensors: as given: toygrad [('leaf 0', (3,), 'float64'), "
        "('leaf 1', (2, 3), 'float64')], torch [('leaf 1', (2, 3), "
        "'float64'), ('le...",
    'a / b: i64 2x3, f32 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'int64'), "
        "('leaf 1', (3,), 'float32')], torch [('leaf 1', (3,), 'float32'), "
        "('leaf 0...",
    'a / b: i64 2x3, f64 0-dim':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'int64'), "
        "('leaf 1', (), 'float64')], torch [('leaf 1', (), 'float64'), "
        "('leaf 0', (...",
    'a /= b: on a leaf, f64 2x3 (no grad)':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64')...",
    'a /= b: on a leaf, f64 2x3, f64 3':
        "saved tensors: only input 1 requires grad: toygrad [('another "
        "tensor', (2, 3), 'float64'), ('leaf 1', (3,), 'float64')], torch "
        "[('leaf 1'...",
    'a /= b: on a non-leaf, f32 2x3, f32 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float32'), ('leaf 1', (3,), 'float32')], torch [('leaf 1', (3,), "
        "'float32')...",
    'a /= b: on a non-leaf, f64 2x3, f32 0-dim':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (), 'float32')], torch [('leaf 1', (), "
        "'float32'), ('...",
    'a /= b: on a non-leaf, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64')...",
    'a /= b: on a view of a leaf, f64 2x3, f64 3':
        "saved tensors: only input 1 requires grad: toygrad [('another "
        "tensor', (3,), 'float64'), ('leaf 1', (3,), 'float64')], torch "
        "[('leaf 1', ...",
    'a /= b: on a view of a non-leaf, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (3,), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64'), ...",
    'a /= b: on an input saved for backward, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('another tensor', (2, 3), 'float64'), ('another "
        "tensor', (2, 3)...",
    'a /= b: on an output saved for backward, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('output 0', (2, 3), 'float64'),"
        " ('another tensor', (2, 3), 'float64'), ('leaf 1', (3,), "
        "'float64')], t...",
    'a /= b: on the base of a view, f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('another tensor', (2, 3), "
        "'float64'), ('leaf 1', (3,), 'float64')], torch [('leaf 1', (3,), "
        "'float64')...",
    'autograd.grad(..., create_graph=True), then grad again: f64 2x3, f64 3':
        "saved tensors: as given: toygrad [('leaf 0', (2, 3), 'float64'), "
        "('leaf 0', (2, 3), 'float64'), ('leaf 1', (3,), 'float64'), "
        "('another te...",
    'autograd.gradcheck(f, inputs): f64 3, right backward':
        'saved tensors: as given: saved 0 (leaf 0): toygrad [-0.49458356, '
        '1.54073544, -0.34640101], torch [-0.49458456, 1.54073544, '
        '-0.34640101]',
    'autograd.gradgradcheck(f, inputs, grad_outputs): f64 3, Cube':
        "saved tensors: as given: toygrad [('leaf 0', (3,), 'float64'), "
        "('leaf 0', (3,), 'float64'), ('another tensor', (3,), 'float64'), "
        "('anothe...",
    'autograd.gradgradcheck(f, inputs, grad_outputs): f64 3, tanh(x ** 3)':
        "saved tensors: as given: toygrad [('leaf 0', (3,), 'float64'), "
        "('leaf 0', (3,), 'float64'), ('leaf 0', (3,), 'float64'), "
        "('another tensor...",
    'number ** a: f32 2x3, 0.5':
        "saved tensors: as given: toygrad [('output 0', (2, 3), "
        "'float32')], torch [('leaf 0', (2, 3), 'float32'), ('output 0', "
        "(2, 3), 'float32')]",
    'number ** a: f32 2x3, 2':
        "saved tensors: as given: toygrad [('output 0', (2, 3), "
        "'float32')], torch [('leaf 0', (2, 3), 'float32'), ('output 0', "
        "(2, 3), 'float32')]",
    'number ** a: f32 2x3, 2.5':
        "saved tensors: as given: toygrad [('output 0', (2, 3), "
        "'float32')], torch [('leaf 0', (2, 3), 'float32'), ('output 0', "
        "(2, 3), 'float32')]",
    'number ** a: f64 0-dim, 2.5':
        "saved tensors: as given: toygrad [('output 0', (), 'float64')], "
        "torch [('leaf 0', (), 'float64'), ('output 0', (), 'float64')]",
    'number ** a: f64 2x3, 0.5':
        "saved tensors: as given: toygrad [('output 0', (2, 3), "
        "'float64')], torch [('leaf 0', (2, 3), 'float64'), ('output 0', "
        "(2, 3), 'float64')]",
    'number ** a: f64 2x3, 2':
        "saved tensors: as given: toygrad [('output 0', (2, 3), "
        "'float64')], torch [('leaf 0', (2, 3), 'float64'), ('output 0', "
        "(2, 3), 'float64')]",
    'number ** a: f64 2x3, 2.5':
        "saved tensors: as given: toygrad [('output 0', (2, 3), "
        "'float64')], torch [('leaf 0', (2, 3), 'float64'), ('output 0', "
        "(2, 3), 'float64')]",
}
