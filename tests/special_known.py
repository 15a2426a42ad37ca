"""The cases of tests/test_differential_special.py that differ today.

Each maps a case id of optable.py's table to why: "<class>: <what differs>".
They are strict xfails: remove an entry when its case agrees.
"""

CLASSES = ("special values", "graphs of gradients", "saved tensors",
           "unsupported")


SPECIAL_UPSTREAM = {
    'F.linear(x, weight): x 3, weight 2x3':
        'special values: run 0: leaf 1 .grad: toygrad [[0., 0., 0.], [0., '
        '0., 0.]], torch [[ 0., 0., 0.], [-0., -0., -0.]]',
    'F.linear(x, weight): x f32 4x3, weight f32 2x3':
        'special values: run 1: leaf 1 .grad: toygrad [[ nan, nan, nan], '
        '[-inf, -inf, inf]], torch [[nan, nan, nan], [nan, nan, inf]]',
    'F.linear(x, weight, bias): x 3, weight 2x3, bias 2':
        'special values: run 0: leaf 1 .grad: toygrad [[0., 0., 0.], [0., '
        '0., 0.]], torch [[ 0., -0., 0.], [-0., 0., -0.]]',
    'F.linear(x, weight, bias): x f32 4x3, weight f32 2x3, bias f32 2':
        'special values: run 0: leaf 1 .grad: toygrad [[nan, nan, nan], '
        '[inf, inf, inf]], torch [[nan, nan, nan], [nan, nan, inf]]',
    'F.log_softmax(x, dim): f64 0-dim, dim=-1':
        'special values: run 1: leaf 0 .grad: toygrad -0., torch 0.',
    'F.log_softmax(x, dim): f64 0-dim, dim=0':
        'special values: run 1: leaf 0 .grad: toygrad -0., torch 0.',
    'Tensor.max() with ties: f64 [1, 3, 3]':
        'special values: run 1: leaf 0 .grad: toygrad [-0., -0., -0.], '
        'torch [ 0., -0., -0.]',
    'Tensor.max(): f32 2x3':
        'special values: run 1: leaf 0 .grad: toygrad [[-0., -0., -0.], '
        '[-0., -0., -0.]], torch [[ 0., 0., -0.], [ 0., 0., 0.]]',
    'Tensor.max(): f64 2x1x3':
        'special values: run 1: leaf 0 .grad: toygrad [[[-0., -0., -0.]], '
        '[[-0., -0., -0.]]], torch [[[ 0., 0., -0.]], [[ 0., 0., 0.]]]',
    'Tensor.max(): f64 2x3':
        'special values: run 1: leaf 0 .grad: toygrad [[-0., -0., -0.], '
        '[-0., -0., -0.]], torch [[ 0., 0., 0.], [ 0., 0., -0.]]',
    'Tensor.max(): f64 3':
        'special values: run 1: leaf 0 .grad: toygrad [-0., -0., -0.], '
        'torch [-0., 0., 0.]',
    'Tensor.max(): f64 3x2, of x.t()':
        'special values: run 1: leaf 0 .grad: toygrad [[-0., -0.], [-0., '
        '-0.], [-0., -0.]], torch [[-0., 0.], [ 0., 0.], [ 0., 0.]]',
    'a @ b: f64 3, f64 3x2':
        'special values: run 0: leaf 1 .grad: toygrad [[0., 0.], [0., 0.], '
        '[0., 0.]], torch [[-0., 0.], [-0., 0.], [-0., 0.]]',
    'nn.Linear(in, out)(x): x 3, bias=False':
        'special values: run 0: leaf 2 .grad: toygrad [[0., 0., 0.], [0., '
        '0., 0.]], torch [[-0., 0., 0.], [ 0., -0., -0.]]',
    'nn.Linear(in, out)(x): x 3, bias=True':
        'special values: run 0: leaf 3 .grad: toygrad [[0., 0., 0.], [0., '
        '0., 0.]], torch [[ 0., -0., 0.], [-0., 0., -0.]]',
    'nn.MaxPool2d(2)(x): x 1x1x4x4':
        'special values: run 0: leaf 0 .grad: toygrad [[[[ 0.,  0., -0.,  '
        '0.],  [ 0.,  0.,  0.,  0.],  [ inf,  0.,  0.,  0.],  [ 0.,  0.,  '
        '0., -in...',
    'nn.MaxPool2d(2)(x): x 2x3x5x7':
        'special values: run 0: leaf 0 .grad: toygrad [[[[ 0.00000000e+000,'
        ' 0.00000000e+000, 0.00000000e+000, ...,   0.00000000e+000,       '
        'inf, 0...',
}


GRADIENT_GRAPH = {
    'Conv2d, ReLU, MaxPool2d, Flatten, CrossEntropyLoss: x 3x1x6x6, target 3':
        'graphs of gradients: grad[0].graph: toygrad '
        'ConvolutionBackwardBackward0[1,13,14] > '
        'ThresholdBackwardBackward0[2,10] > MaxPool2DWithIndic...',
    'F.cross_entropy(logits, target): 1x3, target 1':
        'graphs of gradients: grad[0].graph: toygrad '
        'LogSoftmaxBackwardDataBackward0[1,3] > MulBackward0[2,-] > '
        'AccumulateGrad(0-dim) > LogSoftmax...',
    'F.cross_entropy(logits, target): 4x3, target 4':
        'graphs of gradients: grad[0].graph: toygrad '
        'LogSoftmaxBackwardDataBackward0[1,3] > MulBackward0[2,-] > '
        'AccumulateGrad(0-dim) > LogSoftmax...',
    'F.cross_entropy(logits, target): f32 4x3, target 4':
        'graphs of gradients: grad[0].graph: toygrad '
        'LogSoftmaxBackwardDataBackward0[1,3] > MulBackward0[2,-] > '
        'AccumulateGrad(0-dim) > LogSoftmax...',
    'F.linear(x, weight): x 3, weight 2x3':
        'graphs of gradients: grad[0].graph: toygrad SqueezeBackward1[1] > '
        'MmBackward0[2,4] > ViewBackward0[3] > AccumulateGrad(2) > '
        'TBackward0[5]...',
    'F.nll_loss(log_probs, target): 1x3, target 1':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch NllLossBackwardBackward0[1,2] > '
        'AccumulateGr...',
    'F.nll_loss(log_probs, target): 4x3, target 4':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch NllLossBackwardBackward0[1,2] > '
        'AccumulateGr...',
    'F.nll_loss(log_probs, target): f32 4x3, target 4':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch NllLossBackwardBackward0[1,2] > '
        'AccumulateGr...',
    'Tensor.max() with ties: f64 2x2 all equal':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max() with ties: f64 [1, 3, 3]':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max(): f32 2x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max(): f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max(): f64 2x1x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max(): f64 2x3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max(): f64 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch MaskedFillBackward1[-,1] > '
        'DivBackward0[2,-]...',
    'Tensor.max(): f64 3x2, of x.t()':
        'graphs of gradients: grad[0].graph: toygrad TBackward0[1] > '
        'MulBackward0[2,-] > AccumulateGrad(0-dim), torch TBackward0[1] > '
        'MaskedFillBa...',
    'Tensor.max(dim) with ties: f64 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > AccumulateGrad(2),'
        ' torch ScatterBackward0[-,1...',
    'Tensor.max(dim): f32 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > AccumulateGrad(2),'
        ' torch ScatterBackward0[-,1...',
    'Tensor.max(dim): f64 0-dim, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch ScatterBackward0...',
    'Tensor.max(dim): f64 0-dim, dim=0':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch ScatterBackward0...',
    'Tensor.max(dim): f64 2x3, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > AccumulateGrad(2),'
        ' torch ScatterBackward0[-,1...',
    'Tensor.max(dim): f64 2x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > AccumulateGrad(3),'
        ' torch ScatterBackward0[-,1...',
    'Tensor.max(dim): f64 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > AccumulateGrad(2),'
        ' torch ScatterBackward0[-,1...',
    'Tensor.max(dim): f64 2x3x2, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(2x2), torch ScatterBackward0[-...',
    'Tensor.max(dim, keepdim=True): f32 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(2x1), torch ScatterBackward0[-...',
    'Tensor.max(dim, keepdim=True): f64 0-dim, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch ScatterBackward0...',
    'Tensor.max(dim, keepdim=True): f64 0-dim, dim=0':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(0-dim), torch ScatterBackward0...',
    'Tensor.max(dim, keepdim=True): f64 2x3, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(2x1), torch ScatterBackward0[-...',
    'Tensor.max(dim, keepdim=True): f64 2x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(1x3), torch ScatterBackward0[-...',
    'Tensor.max(dim, keepdim=True): f64 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(2x1), torch ScatterBackward0[-...',
    'Tensor.max(dim, keepdim=True): f64 2x3x2, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad '
        'ValueSelectingReductionBackwardBackward0[1,-] > '
        'AccumulateGrad(2x1x2), torch ScatterBackward0...',
    'Tensor.mean(): f32 2x3':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(): f64 0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(): f64 0-dim':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(): f64 2x1x3':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(): f64 2x3':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(): f64 3':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(): f64 3x2, of x.t()':
        'graphs of gradients: grad[0].graph: toygrad TBackward0[1] > '
        'DivBackward0[2,-] > ExpandBackward0[3] > AccumulateGrad(0-dim), '
        'torch TBackwa...',
    'Tensor.mean(dim): f32 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(2), torch '
        'DivBackw...',
    'Tensor.mean(dim): f64 0-dim, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(dim): f64 0-dim, dim=0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(dim): f64 0x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(3), torch '
        'DivBackw...',
    'Tensor.mean(dim): f64 2x3, dim=()':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(0-dim), '
        'torch DivB...',
    'Tensor.mean(dim): f64 2x3, dim=(-1, 0)':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(0-dim), '
        'torch DivB...',
    'Tensor.mean(dim): f64 2x3, dim=(0, 1)':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(0-dim), '
        'torch DivB...',
    'Tensor.mean(dim): f64 2x3, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(2), torch '
        'DivBackw...',
    'Tensor.mean(dim): f64 2x3, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(3), torch '
        'DivBackw...',
    'Tensor.mean(dim): f64 2x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(3), torch '
        'DivBackw...',
    'Tensor.mean(dim): f64 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(2), torch '
        'DivBackw...',
    'Tensor.mean(dim): f64 2x3, dim=[0, 1]':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(0-dim), '
        'torch DivB...',
    'Tensor.mean(dim): f64 2x3x2, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > ViewBackward0[3] > AccumulateGrad(2x2), torch'
        ' DivBac...',
    'Tensor.mean(dim, keepdim=True): f32 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(2x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 0-dim, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(dim, keepdim=True): f64 0-dim, dim=0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(0-dim), torch DivBackward1[1] '
        '> Expan...',
    'Tensor.mean(dim, keepdim=True): f64 0x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x3), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=()':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=(-1, 0)':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=(0, 1)':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(2x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x3), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x3), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(2x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=None':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3, dim=[0, 1]':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(1x1), torch DivBackward1[1] > '
        'ExpandB...',
    'Tensor.mean(dim, keepdim=True): f64 2x3x2, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad DivBackward0[1,-] > '
        'ExpandBackward0[2] > AccumulateGrad(2x1x2), torch DivBackward1[1] '
        '> Expan...',
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
    'Tensor.sum(dim): f32 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(2), torch ExpandBackward0[1] > '
        'Unsquee...',
    'Tensor.sum(dim): f64 0x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(3), torch ExpandBackward0[1] > '
        'Unsquee...',
    'Tensor.sum(dim): f64 2x3, dim=()':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(0-dim), torch ExpandBackward0[1]'
        ' > Acc...',
    'Tensor.sum(dim): f64 2x3, dim=(-1, 0)':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(0-dim), torch ExpandBackward0[1]'
        ' > Uns...',
    'Tensor.sum(dim): f64 2x3, dim=(0, 1)':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(0-dim), torch ExpandBackward0[1]'
        ' > Uns...',
    'Tensor.sum(dim): f64 2x3, dim=-1':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(2), torch ExpandBackward0[1] > '
        'Unsquee...',
    'Tensor.sum(dim): f64 2x3, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(3), torch ExpandBackward0[1] > '
        'Unsquee...',
    'Tensor.sum(dim): f64 2x3, dim=0':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(3), torch ExpandBackward0[1] > '
        'Unsquee...',
    'Tensor.sum(dim): f64 2x3, dim=1':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(2), torch ExpandBackward0[1] > '
        'Unsquee...',
    'Tensor.sum(dim): f64 2x3, dim=[0, 1]':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(0-dim), torch ExpandBackward0[1]'
        ' > Uns...',
    'Tensor.sum(dim): f64 2x3x2, dim=-2':
        'graphs of gradients: grad[0].graph: toygrad ExpandBackward0[1] > '
        'ViewBackward0[2] > AccumulateGrad(2x2), torch ExpandBackward0[1] >'
        ' Unsqu...',
    'a @ b: f64 2x2x3, f64 3':
        'graphs of gradients: grad[0].graph: toygrad ViewBackward0[1] > '
        'MulBackward0[2,5] > UnsqueezeBackward0[3] > ViewBackward0[4] > '
        'AccumulateG...',
    'a @ b: f64 2x3, f64 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'UnsqueezeBackward0[2] > AccumulateGrad(2) > AccumulateGrad(3), '
        'torch MulB...',
    'a @ b: f64 3, f64 3x2':
        'graphs of gradients: grad[0].graph: toygrad SqueezeBackward1[1] > '
        'MmBackward0[2,4] > ViewBackward0[3] > AccumulateGrad(2) > '
        'TBackward0[5]...',
    'a.mv(v): f32 2x3, f32 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'UnsqueezeBackward0[2] > AccumulateGrad(2) > AccumulateGrad(3), '
        'torch MulB...',
    'a.mv(v): f64 2x3, f64 3':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,3] > '
        'UnsqueezeBackward0[2] > AccumulateGrad(2) > AccumulateGrad(3), '
        'torch MulB...',
    'a.mv(v): f64 2x3, f64 3 (no grad)':
        'graphs of gradients: grad[0].graph: toygrad MulBackward0[1,-] > '
        'UnsqueezeBackward0[2] > AccumulateGrad(2), torch MulBackward0[1,-]'
        ' > View...',
    'nn.Linear(in, out)(x): x 3, bias=False':
        'graphs of gradients: grad[0].graph: toygrad SqueezeBackward1[1] > '
        'MmBackward0[2,4] > ViewBackward0[3] > AccumulateGrad(2) > '
        'TBackward0[5]...',
    'x[0] * x[1:].sum(0), x[:, 1]: f64 3x4':
        'graphs of gradients: grad[0].graph: toygrad AddBackward0[1,11] > '
        'AddBackward0[2,4] > SelectBackwardBackward0[3] > AccumulateGrad(3)'
        ' > Sli...',
}


SAVED_SEQUENCE = {
    'Conv2d, ReLU, MaxPool2d, Flatten, CrossEntropyLoss: x 3x1x6x6, target 3':
        "saved tensors: as given: toygrad [('leaf 0', (3, 1, 6, 6), "
        "'float64'), ('another tensor', (2, 1, 3, 3), 'float64'), ('another"
        " tensor', (3...",
    'F.cross_entropy(logits, target): 1x3, target 1':
        "saved tensors: as given: toygrad [('another tensor', (1, 3), "
        "'float64'), ('another tensor', (1,), 'int64')], torch [('another "
        "tensor', (1...",
    'F.cross_entropy(logits, target): 4x3, target 4':
        "saved tensors: as given: toygrad [('another tensor', (4, 3), "
        "'float64'), ('another tensor', (4,), 'int64')], torch [('another "
        "tensor', (4...",
    'F.cross_entropy(logits, target): f32 4x3, target 4':
        "saved tensors: as given: toygrad [('another tensor', (4, 3), "
        "'float32'), ('another tensor', (4,), 'int64')], torch [('another "
        "tensor', (4...",
    'F.linear(x, weight, bias): x 2x4x3, weight 2x3, bias 2':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float64'), ('another tensor', (8, 3), 'float64')], torch "
        "[('another tensor'...",
    'F.linear(x, weight, bias): x 3, weight 2x3, bias 2':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float64'), ('another tensor', (1, 3), 'float64')], torch "
        "[('another tensor'...",
    'F.linear(x, weight, bias): x 4x3, weight 2x3, bias 2':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float64'), ('leaf 0', (4, 3), 'float64')], torch [('leaf 0', (4, "
        "3), 'float...",
    'F.linear(x, weight, bias): x f32 4x3, weight f32 2x3, bias f32 2':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float32'), ('leaf 0', (4, 3), 'float32')], torch [('leaf 0', (4, "
        "3), 'float...",
    'F.nll_loss(log_probs, target): 1x3, target 1':
        "saved tensors: as given: toygrad [('another tensor', (1,), "
        "'int64')], torch [('leaf 0', (1, 3), 'float64'), ('leaf 1', (1,), "
        "'int64'), ('...",
    'F.nll_loss(log_probs, target): 4x3, target 4':
        "saved tensors: as given: toygrad [('another tensor', (4,), "
        "'int64')], torch [('leaf 0', (4, 3), 'float64'), ('leaf 1', (4,), "
        "'int64'), ('...",
    'F.nll_loss(log_probs, target): f32 4x3, target 4':
        "saved tensors: as given: toygrad [('another tensor', (4,), "
        "'int64')], torch [('leaf 0', (4, 3), 'float32'), ('leaf 1', (4,), "
        "'int64'), ('...",
    'a @ b: f64 2x1x2x3, f64 3x3x2':
        "saved tensors: as given: toygrad [('another tensor', (6, 2, 3), "
        "'float64'), ('another tensor', (6, 3, 2), 'float64')], torch "
        "[('another t...",
    'a @ b: f64 2x2x3, f64 2x3x4':
        "saved tensors: as given: toygrad [('another tensor', (2, 2, 3), "
        "'float64'), ('another tensor', (2, 3, 4), 'float64')], torch "
        "[('another t...",
    'a.bmm(b): f32 2x2x3, f32 2x3x4':
        "saved tensors: as given: toygrad [('leaf 0', (2, 2, 3), "
        "'float32'), ('leaf 1', (2, 3, 4), 'float32')], torch [('leaf 1', "
        "(2, 3, 4), 'floa...",
    'a.bmm(b): f64 2x2x3, f64 2x3x4':
        "saved tensors: as given: toygrad [('leaf 0', (2, 2, 3), "
        "'float64'), ('leaf 1', (2, 3, 4), 'float64')], torch [('leaf 1', "
        "(2, 3, 4), 'floa...",
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
    'nn.Linear(in, out)(x): x 2x4x3, bias=True':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float64'), ('another tensor', (8, 3), 'float64')], torch "
        "[('another tensor'...",
    'nn.Linear(in, out)(x): x 3, bias=True':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float64'), ('another tensor', (1, 3), 'float64')], torch "
        "[('another tensor'...",
    'nn.Linear(in, out)(x): x 4x3, bias=True':
        "saved tensors: as given: toygrad [('another tensor', (3, 2), "
        "'float64'), ('leaf 0', (4, 3), 'float64')], torch [('leaf 0', (4, "
        "3), 'float...",
    'nn.Sequential(Linear, ReLU, Linear)(x): x 5x3':
        "saved tensors: as given: toygrad [('another tensor', (3, 4), "
        "'float64'), ('leaf 0', (5, 3), 'float64'), ('another tensor', (5, "
        "4), 'float...",
}
