"""The cases of tests/test_differential_special.py that differ today.

Each maps a case id of optable.py's table to why: "<class>: <what differs>".
They are strict xfails: remove an entry when its case agrees.
"""

# Cases whose outcome follows which kernel PyTorch's MKL picks on the CPU
# at hand (on an AVX-512 Xeon it agrees with NumPy's BLAS, on others not):
# xfails, but not strict.
MACHINE_DEPENDENT = {
    'F.linear(x, weight): x f32 4x3, weight f32 2x3',
    'F.linear(x, weight, bias): x f32 4x3, weight f32 2x3, bias f32 2',
}

CLASSES = ("special values", "graphs of gradients", "saved tensors",
           "unsupported")






SPECIAL_UPSTREAM = {
    'F.cross_entropy(logits, target, ignore_index, reduction): none, 4x3,'
    ' target 4 with -100':
        "special values: log_softmax's backward of a summed (not averaged)"
        " loss at the subnormal level: PyTorch's vectorized kernel rounds"
        " grad - exp(out) * sum to -0.0 where NumPy's gives 0.0 (the sign of"
        ' a zero, not the formula)',
    'F.cross_entropy(logits, target, ignore_index, reduction): sum, 4x3,'
    ' ignore_index=1':
        "special values: log_softmax's backward of a summed (not averaged)"
        " loss at the subnormal level: PyTorch's vectorized kernel rounds"
        " grad - exp(out) * sum to -0.0 where NumPy's gives 0.0 (the sign of"
        ' a zero, not the formula)',
    'F.cross_entropy(logits, target, ignore_index, reduction): sum, 4x3,'
    ' target 4':
        "special values: log_softmax's backward of a summed (not averaged)"
        " loss at the subnormal level: PyTorch's vectorized kernel rounds"
        " grad - exp(out) * sum to -0.0 where NumPy's gives 0.0 (the sign of"
        ' a zero, not the formula)',
    'F.cross_entropy(logits, target, ignore_index, reduction): sum, 4x3,'
    ' target 4 with -100':
        "special values: log_softmax's backward of a summed (not averaged)"
        " loss at the subnormal level: PyTorch's vectorized kernel rounds"
        " grad - exp(out) * sum to -0.0 where NumPy's gives 0.0 (the sign of"
        ' a zero, not the formula)',
    'F.linear(x, weight): x 3, weight 2x3':
        'special values: the sign of a zero in a matrix product: for K=1'
        " PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's"
        " BLAS sums from +0.0; the kernel's, not the formula's",
    'F.linear(x, weight): x f32 4x3, weight f32 2x3':
        "special values: float32 product near float32's max: whether a sum"
        " overflows to inf, then NaN, follows MKL's order and fused"
        " multiply-adds, not NumPy's BLAS; the formula is PyTorch's",
    'F.linear(x, weight, bias): x 3, weight 2x3, bias 2':
        'special values: the sign of a zero in a matrix product: for K=1'
        " PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's"
        " BLAS sums from +0.0; the kernel's, not the formula's",
    'F.linear(x, weight, bias): x f32 4x3, weight f32 2x3, bias f32 2':
        "special values: float32 product near float32's max: whether a sum"
        " overflows to inf, then NaN, follows MKL's order and fused"
        " multiply-adds, not NumPy's BLAS; the formula is PyTorch's",
    'F.log_softmax(x, dim) at special points: f32 special points, nan, 0':
        'special values: float32, a dim other than the last: at the'
        " subnormal level PyTorch's vectorized kernel rounds grad - exp(out)"
        " * sum to -0.0 where NumPy's gives -1e-45 or 0.0 (its exp and fused"
        ' multiply-add, not the formula)',
    'F.log_softmax(x, dim) at special points: f32 special points, ties, 0':
        'special values: float32, a dim other than the last: at the'
        " subnormal level PyTorch's vectorized kernel rounds grad - exp(out)"
        " * sum to -0.0 where NumPy's gives -1e-45 or 0.0 (its exp and fused"
        ' multiply-add, not the formula)',
    'a @ b: f64 3, f64 3x2':
        'special values: the sign of a zero in a matrix product: for K=1'
        " PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's"
        " BLAS sums from +0.0; the kernel's, not the formula's",
    'nn.CrossEntropyLoss(ignore_index, reduction): sum, 4x3, target 4':
        "special values: log_softmax's backward of a summed (not averaged)"
        " loss at the subnormal level: PyTorch's vectorized kernel rounds"
        " grad - exp(out) * sum to -0.0 where NumPy's gives 0.0 (the sign of"
        ' a zero, not the formula)',
    'nn.Linear(in, out)(x): x 3, bias=False':
        'special values: the sign of a zero in a matrix product: for K=1'
        " PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's"
        " BLAS sums from +0.0; the kernel's, not the formula's",
    'nn.Linear(in, out)(x): x 3, bias=True':
        'special values: the sign of a zero in a matrix product: for K=1'
        " PyTorch's MKL mm keeps a product's -0.0 at some sizes, NumPy's"
        " BLAS sums from +0.0; the kernel's, not the formula's",
}


GRADIENT_GRAPH = {}


SAVED_SEQUENCE = {
    'autograd.gradcheck(f, inputs): f64 3, right backward':
        'saved tensors: as given: saved 0 (leaf 0): toygrad [-0.49458356,'
        ' 1.54073544, -0.34640101], torch [-0.49458456, 1.54073544,'
        ' -0.34640101]',
    'autograd.gradgradcheck(f, inputs, grad_outputs): f64 3, Cube':
        "saved tensors: as given: toygrad [('leaf 0', (3,), 'float64'),"
        " ('leaf 0', (3,), 'float64'), ('another tensor', (3,), 'float64'),"
        " ('anothe...",
    'autograd.gradgradcheck(f, inputs, grad_outputs): f64 3, tanh(x ** 3)':
        "saved tensors: as given: toygrad [('leaf 0', (3,), 'float64'),"
        " ('leaf 0', (3,), 'float64'), ('leaf 0', (3,), 'float64'),"
        " ('another tensor...",
}


SAVED_BY_THE_GRADIENT = {}
