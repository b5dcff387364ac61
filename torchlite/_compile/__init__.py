"""torchlite.compile's machinery: the fusible operator table (pointwise_table), fused C++ loops
(cpp_kernel), region finding and graph rewriting (fusion), guards and the compiled callable
(compiled)."""
