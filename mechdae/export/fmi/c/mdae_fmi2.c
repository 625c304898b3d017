/* mdae_fmi2.c - the FMI 2.0 API (Model Exchange and Co-Simulation) over mdae_fmu_core.c.
 *
 * Every variable of a mechdae FMU is a Real; Integer, Boolean and String requests must be
 * empty. Directional derivatives and input derivatives are not offered. */
#include "fmi2Functions.h"
#include "mdae_fmu.h"

#include <stdlib.h>
#include <string.h>

#define M ((mdae_fmu *)c)

typedef struct { fmi2CallbackLogger log; fmi2ComponentEnvironment env; } log2_env;

static void log_fmi2(void *env, const char *instance, int status, const char *category,
                 const char *message)
{
    log2_env *e = (log2_env *)env;
    if (e && e->log) e->log(e->env, instance, (fmi2Status)status, category, "%s", message);
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    (void)nCategories; (void)categories;
    M->logging = loggingOn;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    log2_env *e;
    mdae_fmu *m;
    int cs = fmuType == fmi2CoSimulation;
    (void)fmuResourceLocation; (void)visible;
    if (!functions || !functions->logger) return NULL;
    if ((cs && !MDAE_CS) || (!cs && !MDAE_ME)) {
        functions->logger(functions->componentEnvironment, instanceName, fmi2Error,
                          "logStatusError", "this FMU was exported for %s only",
                          MDAE_CS ? "Co-Simulation" : "Model Exchange");
        return NULL;
    }
    e = (log2_env *)calloc(1, sizeof *e);
    if (!e) return NULL;
    e->log = functions->logger;
    e->env = functions->componentEnvironment;
    m = mdae_fmu_new(instanceName, fmuGUID, cs, log_fmi2, e, loggingOn);
    if (!m) free(e);
    return m;
}

void fmi2FreeInstance(fmi2Component c)
{
    if (!c) return;
    free(M->env);
    mdae_fmu_free(M);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    M->r[0] = startTime;
    M->dirty = 1;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) { (void)c; return fmi2OK; }

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    M->initializing = 0;
    return (fmi2Status)mdae_fmu_eval(M);
}

fmi2Status fmi2Terminate(fmi2Component c) { (void)c; return fmi2OK; }
fmi2Status fmi2Reset(fmi2Component c) { mdae_fmu_reset(M); return fmi2OK; }

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    return (fmi2Status)mdae_fmu_get(M, vr, nvr, value);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    return (fmi2Status)mdae_fmu_set(M, vr, nvr, value, M->initializing);
}

static fmi2Status no_such(fmi2Component c, size_t nvr, const fmi2ValueReference vr[],
                          const char *what)
{
    if (!nvr) return fmi2OK;
    mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError",
                  "%s: value reference %u is not a variable of this type (all are Real)",
                  what, vr[0]);
    return fmi2Error;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{ (void)value; return no_such(c, nvr, vr, "fmi2GetInteger"); }
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{ (void)value; return no_such(c, nvr, vr, "fmi2GetBoolean"); }
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{ (void)value; return no_such(c, nvr, vr, "fmi2GetString"); }
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{ (void)value; return no_such(c, nvr, vr, "fmi2SetInteger"); }
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{ (void)value; return no_such(c, nvr, vr, "fmi2SetBoolean"); }
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{ (void)value; return no_such(c, nvr, vr, "fmi2SetString"); }

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    double *buf = (double *)(*FMUstate ? *FMUstate
                             : malloc(mdae_fmu_state_size() * sizeof(double)));
    if (!buf) return fmi2Error;
    mdae_fmu_state_save(M, buf);
    *FMUstate = buf;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    if (!FMUstate) return fmi2Error;
    mdae_fmu_state_load(M, (const double *)FMUstate);
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    (void)c;
    if (FMUstate) { free(*FMUstate); *FMUstate = NULL; }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    (void)c; (void)FMUstate;
    *size = mdae_fmu_state_size() * sizeof(double);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
    (void)c;
    if (size != mdae_fmu_state_size() * sizeof(double) || !FMUstate) return fmi2Error;
    memcpy(serializedState, FMUstate, size);
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
    (void)c;
    if (size != mdae_fmu_state_size() * sizeof(double)) return fmi2Error;
    if (!*FMUstate) *FMUstate = malloc(size);
    if (!*FMUstate) return fmi2Error;
    memcpy(*FMUstate, serializedState, size);
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown;
    (void)dvUnknown;
    mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError",
                  "directional derivatives are not offered by this FMU");
    return fmi2Error;
}

/* ------------------------------------------------------------------ Model Exchange */
fmi2Status fmi2EnterEventMode(fmi2Component c) { (void)c; return fmi2OK; }

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info)
{
    int changed = 0, terminate = 0, st = MDAE_FMU_OK;
#if MDAE_NC > 0
    st = mdae_fmu_event(M, &changed, &terminate);
#else
    (void)c;
#endif
    info->newDiscreteStatesNeeded = fmi2False;
    info->terminateSimulation = terminate ? fmi2True : fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = changed ? fmi2True : fmi2False;
    info->nextEventTimeDefined = fmi2False;
    info->nextEventTime = 0.0;
    return (fmi2Status)st;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) { (void)c; return fmi2OK; }

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation)
{
    (void)c; (void)noSetFMUStatePriorToCurrentPoint;
    *enterEventMode = fmi2False;
    *terminateSimulation = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    M->r[0] = time;
    M->dirty = 1;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    return (fmi2Status)mdae_fmu_set_states(M, x, nx);
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    return (fmi2Status)mdae_fmu_get_derivatives(M, derivatives, nx);
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    return (fmi2Status)mdae_fmu_get_indicators(M, eventIndicators, ni);
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    return (fmi2Status)mdae_fmu_get_states(M, x, nx);
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    return (fmi2Status)mdae_fmu_get_nominals(M, x_nominal, nx);
}

/* ------------------------------------------------------------------ Co-Simulation */
fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
    (void)vr; (void)order; (void)value;
    if (!nvr) return fmi2OK;
    mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError",
                  "input derivatives are not used (inputs are held over a step)");
    return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[], fmi2Real value[])
{
    (void)vr; (void)order; (void)value;
    if (!nvr) return fmi2OK;
    mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError",
                  "output derivatives are not offered by this FMU");
    return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    int st, terminate = 0;
    (void)noSetFMUStatePriorToCurrentPoint;
    st = mdae_fmu_do_step_events(M, currentCommunicationPoint, communicationStepSize,
                                 &terminate);
    M->terminated = terminate;
    /* FMI 2.0: a slave that ends the run returns fmi2Discard, fmi2Terminated says why */
    return terminate && st == MDAE_FMU_WARNING ? fmi2Discard : (fmi2Status)st;
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    mdae_fmu_logf(M, MDAE_FMU_ERROR, "logStatusError", "steps are synchronous: nothing to cancel");
    return fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{ (void)c; (void)s; *value = fmi2OK; return fmi2Discard; }
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    if (s == fmi2LastSuccessfulTime) { *value = M->r[0]; return fmi2OK; }
    return fmi2Discard;
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{ (void)c; (void)s; (void)value; return fmi2Discard; }
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    if (s == fmi2Terminated) { *value = M->terminated ? fmi2True : fmi2False; return fmi2OK; }
    return fmi2Discard;
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{ (void)c; (void)s; (void)value; return fmi2Discard; }
